from searchapp.cli.entry import main

raise SystemExit(main())
