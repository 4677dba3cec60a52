from gitflow_harness.main import main

raise SystemExit(main())
