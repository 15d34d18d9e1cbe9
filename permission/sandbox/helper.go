package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
)

// helperArg is the first argument that makes the binary act as the
// sandbox helper instead of NovaCode.
const helperArg = "__nova-sandbox-exec"

// helperExitCode is the exit code of a helper that could not start the
// command, as a shell reports a command it cannot execute.
const helperExitCode = 126

// helperWired records that main calls MaybeRunHelper, so that commands
// may be routed through a re-execution of this binary.
var helperWired atomic.Bool

// helperSpec is what the helper is told to do, on its command line.
type helperSpec struct {
	Backend      string   `json:"backend"`
	Writable     []string `json:"writable,omitempty"`
	AllowNetwork bool     `json:"allowNetwork,omitempty"`
	TempDir      string   `json:"tempDir,omitempty"`
	Dir          string   `json:"dir,omitempty"`
}

// encode makes the spec one argument: JSON, base64url so that no byte of
// it can look like a flag or be mangled.
func (h helperSpec) encode() (string, error) {
	data, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("encode sandbox policy: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(data), nil
}

func decodeSpec(s string) (helperSpec, error) {
	var h helperSpec
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return h, fmt.Errorf("decode sandbox policy: %w", err)
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("decode sandbox policy: %w", err)
	}
	return h, nil
}

// MaybeRunHelper must be the first thing main does (internal/cli.Main
// calls it before parsing flags or reading settings):
//
//	if handled, code := sandbox.MaybeRunHelper(); handled {
//		os.Exit(code)
//	}
//
// When the process was started as the sandbox helper
// (os.Args[1] == "__nova-sandbox-exec"), it confines itself as its
// arguments say and executes the command, which never returns on success;
// handled is then true and exitCode is the code to exit with after a
// failure (126, the message on stderr). Otherwise it marks the descriptors
// the process inherited close-on-exec (so they never reach a command),
// records that the helper is wired, which New needs before it routes
// commands through it (Landlock), and returns false.
//
// Running the helper by hand is harmless: it can only confine itself
// further.
func MaybeRunHelper() (handled bool, exitCode int) {
	if len(os.Args) < 2 || os.Args[1] != helperArg {
		helperWired.Store(true)
		// Commands are started straight from this process (bubblewrap),
		// so what this process inherited must not reach them.
		closeInheritedFDs()
		return false, 0
	}
	err := runHelper(os.Args[2:])
	fmt.Fprintf(os.Stderr, "nova sandbox: %v\n", err)
	return true, helperExitCode
}

// runHelper confines the process and executes the command; it returns
// only on failure.
func runHelper(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: %s POLICY -- COMMAND [ARG...]", helperArg)
	}
	spec, err := decodeSpec(args[0])
	if err != nil {
		return err
	}
	argv := args[2:]
	switch spec.Backend {
	case KindLandlock:
		return execLandlock(spec, argv)
	}
	return fmt.Errorf("unknown sandbox backend %q", spec.Backend)
}

// setEnv returns env with key set to value, replacing earlier values.
func setEnv(env []string, key, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}
