#if canImport(Glibc)
import Glibc
#endif
import EmulatorSuite

// The executable is thin: parse, run, exit. Everything else lives in EmulatorSuite.
exit(CommandRunner().run(Array(CommandLine.arguments.dropFirst())))
