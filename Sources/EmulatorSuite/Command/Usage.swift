/// Help text for `emulators` and each command.
package enum Usage {
    package static func text(for command: CommandName?) -> String {
        switch command {
        case nil: general
        case .start: start
        case .exec: exec
        case .export: export
        }
    }

    static let general = """
        Usage: emulators <command> [options]

        A Firestore and Realtime Database emulator suite in one process, driven by firebase.json.

        Commands:
          start                 start the emulators and the hub; stop with Ctrl-C
          exec "<script>"       start the emulators, run a shell command against them, stop
          export <dir>          export the data of a running suite to <dir>
          help [command]        show help for a command

        Global options:
          -P, --project <id>    project ID or .firebaserc alias (default: .firebaserc default, else demo-no-project)
          -c, --config <file>   firebase.json to read (default: ./firebase.json)
          --non-interactive     accepted for compatibility; this CLI never prompts
          --debug               same as --log-verbosity DEBUG
          -V, --version         print the version
          -h, --help            show help

        The official spellings emulators:start, emulators:exec and emulators:export work too.
        Exit status: 0 success, 1 failure, 2 invalid command line.

        """

    static let startOptions = """
          --only <names>        comma-separated: firestore, database (the hub always runs)
          --import <dir>        import data exported earlier (or a production export) at start-up
          --export-on-exit [dir]
                                export when the suite stops (default dir: the --import dir)
          --data-dir <dir>      keep all data live in <dir>: every write is journaled before it is
                                acknowledged, so even kill -9 loses nothing; the next start with
                                the same --data-dir restores everything
          --data-dir-no-fsync   (with --data-dir) acknowledge after write() instead of fdatasync:
                                still survives kill -9; a sync about every second bounds what a
                                power loss takes; writes run near in-memory speed, not disk-sync speed
          --log-verbosity <level>
                                DEBUG, INFO (default), QUIET (warnings and banner), SILENT (errors only)
          -P, --project <id>    project ID or .firebaserc alias
          -c, --config <file>   firebase.json to read
        """

    static let start = """
        Usage: emulators start [options]

        Starts every emulator firebase.json configures (or, without firebase.json, Firestore on 8080,
        Realtime Database on 9000 and the hub on 4400), prints "All emulators ready!" once every port
        accepts, and runs until SIGINT, SIGTERM, SIGHUP or SIGQUIT. The first signal shuts down
        cleanly (exit 0); another one at least 100 ms later exits at once with status 130.

        Options:
        \(startOptions)

        """

    static let exec = """
        Usage: emulators exec [options] "<script>"

        Starts the emulators, runs <script> with /bin/sh -c (inheriting stdin, stdout and stderr) with
        FIRESTORE_EMULATOR_HOST, FIREBASE_DATABASE_EMULATOR_HOST, FIREBASE_EMULATOR_HUB and
        GCLOUD_PROJECT set, then stops the emulators.

        Exit status: the script's; 2 if it was killed by a signal; 1 if the emulators did not start.
        The first SIGINT, SIGTERM, SIGHUP or SIGQUIT is passed on to the script; another one at least
        100 ms later, during the script or the shutdown after it, exits at once with status 130.

        Options:
        \(startOptions)
          --ui                  also serve the Emulator UI (start serves it unless disabled)

        """

    static let export = """
        Usage: emulators export [options] <dir>

        Asks the suite running for the project (found through the hub locator file in $TMPDIR or /tmp)
        to export its data to <dir>.

        Options:
          --only <names>        comma-separated: firestore, database (default: every running emulator)
          --force               overwrite an existing export in <dir>
          -P, --project <id>    project ID or .firebaserc alias of the running suite

        """
}
