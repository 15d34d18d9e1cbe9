// Package cli wires NovaCode's command line: flags, configuration from the
// environment, and the frontends (print mode for now) around agent.Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
)

// Version is set at build time with -ldflags "-X github.com/novacode/nova/internal/cli.Version=…".
var Version = "0.1.0-dev"

// Commit and Date (RFC 3339) name the commit a release was built from, set at
// build time like Version (scripts/release, .goreleaser.yaml). They are shown
// only when the toolchain recorded no commit itself (a build from a source
// archive, or with -buildvcs=false).
var Commit, Date string

// versionLine is what --version prints after "nova version ": Version and
// what the Go toolchain recorded in the binary. go build and go install
// in a git clone record the commit and its time (vcs.revision, vcs.time;
// not with -buildvcs=false, nor in a linked git worktree); go run and
// builds outside a clone record none, and say so instead of guessing, unless
// the build set commit and date.
func versionLine(version, commit, date string, bi *debug.BuildInfo) string {
	var rev, at string
	modified := false
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if rev == "" && isCommitHash(commit) {
		rev, at = commit, date
	}
	if bi == nil && rev == "" {
		return version + " (devel: no build information)"
	}
	var parts []string
	switch {
	case rev != "":
		c := "commit " + rev[:min(len(rev), 12)]
		if t, err := time.Parse(time.RFC3339, at); err == nil && !t.IsZero() {
			c += " of " + t.UTC().Format("2006-01-02 15:04 UTC")
		}
		if modified {
			c += ", with uncommitted changes"
		}
		parts = append(parts, c)
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		// go install github.com/novacode/nova/cmd/nova@version
		parts = append(parts, "module "+bi.Main.Version)
	default:
		parts = append(parts, "devel: built without version control information, so no commit is known")
	}
	if bi != nil && bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	return version + " (" + strings.Join(parts, "; ") + ")"
}

// isCommitHash: c names a git commit (a release tool without the repository's
// history sets "none" or "unknown" instead).
func isCommitHash(c string) bool {
	if len(c) < 7 {
		return false
	}
	for _, r := range c {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func buildInfo() *debug.BuildInfo {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi
	}
	return nil
}

// exitError carries a process exit code out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs the nova command line and returns the process exit code.
func Main() int { return MainWith(nil) }

// MainWith is Main with the commands c adds (nova-temporal's main).
func MainWith(c *Companion) int {
	// Before anything opens a file: what nova inherited must not reach the
	// commands it starts.
	nova.InitProcess()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C cancels the run cleanly; restoring the default
	// handler then lets a second one end the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	return RunWith(ctx, iostreams.System(), os.Args[1:], c)
}

// Run executes nova with args on ios; tests call it directly.
func Run(ctx context.Context, ios *iostreams.IOStreams, args []string) int {
	return RunWith(ctx, ios, args, nil)
}

// RunWith is Run with the commands c adds.
func RunWith(ctx context.Context, ios *iostreams.IOStreams, args []string, c *Companion) (code int) {
	defer func() {
		// A bug must not reach the user as a goroutine dump: say what
		// happened and how to report it. (Tool panics never get here; the
		// executor turns them into results.)
		if p := recover(); p != nil {
			fmt.Fprintf(ios.ErrOut, "nova: internal error: %v\nThis is a bug in NovaCode; please report it with the command you ran (NOVA_DEBUG=1 adds a stack trace).\n", p)
			if os.Getenv("NOVA_DEBUG") != "" {
				ios.ErrOut.Write(debug.Stack())
			}
			code = 2
		}
	}()
	cmd := NewCmdRoot(ios, nil)
	cmd.SetArgs(args)
	cmd.SetIn(ios.In)
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	// A command nova hands over to its companion hands over this line.
	ctx = context.WithValue(context.WithValue(ctx, argsKey{}, args), companionKey{}, c)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(ios.ErrOut, "nova: %v\n", err)
	if strings.HasPrefix(err.Error(), "unknown command ") && len(args) > 1 && !strings.HasPrefix(args[0], "-") {
		// "nova rewind the last change" meets the rewind command; the user
		// most likely meant a prompt.
		fmt.Fprintf(ios.ErrOut, "To send it as a prompt, quote it: nova %q\n", strings.Join(args, " "))
	}
	return 1
}
