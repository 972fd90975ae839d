package main

// The controller's logging flags: -v, -vmodule and --log-format, applied
// with the Kubernetes logging libraries (k8s.io/component-base/logs), as
// the control-plane components do. klog's older flags (-logtostderr,
// -log_file, ...) are not offered: with a logger set through these
// libraries klog's own output options no longer apply, and listing them
// buried the controller's flags in -h (docs/operations.md, Flags).

import (
	"flag"
	"fmt"
	"io"

	logsapi "k8s.io/component-base/logs/api/v1"
	// The JSON format is optional in component-base; importing it
	// registers "json" besides "text".
	_ "k8s.io/component-base/logs/json/register"
)

// logFormats are the values --log-format accepts, as its error names them.
const logFormats = logsapi.DefaultLogFormat + ", " + logsapi.JSONLogFormat

// isVerbosityFlag reports the flags the start-up line of effective flags
// leaves out, as it left klog's out: they shape the log rather than the
// work.
func isVerbosityFlag(name string) bool { return name == "v" || name == "vmodule" }

// defineLoggingFlags adds -v, -vmodule and --log-format to fs, writing
// into c; applyLogging then makes c the process's logging.
func defineLoggingFlags(fs *flag.FlagSet, c *logsapi.LoggingConfiguration) {
	fs.Var(logsapi.VerbosityLevelPflag(&c.Verbosity), "v", "log verbosity `level`: 0 (the default) to 4; -v=2 adds causes such as why a base config was not resolved, -v=4 what each write changes")
	fs.Var(logsapi.VModuleConfigurationPflag(&c.VModule), "vmodule", "per-file verbosity, as `pattern=N,...` (text format only)")
	fs.Var(&logFormatValue{format: &c.Format}, "log-format",
		"log `format`: text (klog's lines) or json (one JSON object per line); both on stderr")
}

// logFormatValue is --log-format: a flag error, naming the allowed values,
// for any other value, so a typo fails at parse time with exit code 2.
type logFormatValue struct{ format *string }

func (v *logFormatValue) String() string {
	if v.format == nil {
		return ""
	}
	return *v.format
}

func (v *logFormatValue) Set(s string) error {
	switch s {
	case logsapi.DefaultLogFormat, logsapi.JSONLogFormat:
	default:
		return fmt.Errorf("unknown log format %q: want one of %s", s, logFormats)
	}
	*v.format = s
	return nil
}

// applyLogging makes c the process's logging, with every line on stderr
// (stdout carries no output of the controller). It can run once per
// process: the libraries keep the configuration in global state.
func applyLogging(c *logsapi.LoggingConfiguration, stderr io.Writer) error {
	return logsapi.ValidateAndApplyWithOptions(c, &logsapi.LoggingOptions{ErrorStream: stderr, InfoStream: stderr}, nil)
}
