package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/tui"
)

// trustChoice says how a run decides whether its workspace is trusted, when
// some of the project-level settings need it (config.Workspace.Widening).
type trustChoice struct {
	// Flag is --trust-workspace: trusted for this run, nothing remembered.
	Flag bool
	// Ask asks the person (the TUI's dialog) and returns their answer,
	// which is then remembered. Nil in print mode, which never asks.
	Ask func(ctx context.Context, ws *config.Workspace) (bool, error)
}

// decideTrust returns whether to apply the workspace's widening settings:
// with the flag, yes; with an answer remembered for exactly these settings,
// that answer; else the person is asked, or, where nobody can be asked, no.
// notice says what was left out and how to trust the workspace ("" when
// nothing was), in lines without a "nova: " prefix; the caller shows it
// once.
func decideTrust(ctx context.Context, ws *config.Workspace, c trustChoice) (trusted bool, notice string, err error) {
	if !ws.NeedsTrust() || c.Flag {
		return true, "", nil
	}
	trusted, remembered := ws.Remembered()
	if !remembered && c.Ask != nil {
		if trusted, err = c.Ask(ctx, ws); err != nil {
			return false, "", err
		}
		if err := config.RememberTrust(ws.UserPath, ws.Key, ws.Hash, trusted); err != nil {
			notice = fmt.Sprintf("warning: your answer could not be remembered, so you will be asked again: %v\n", err)
		}
		remembered = true
	}
	if !trusted {
		notice += untrustedNotice(ws, remembered)
	}
	return trusted, notice, nil
}

// untrustedNotice names each setting left out and says how to trust the
// workspace. declined: the person answered "don't trust" for these.
func untrustedNotice(ws *config.Workspace, declined bool) string {
	var b strings.Builder
	if declined {
		b.WriteString("you chose not to trust this workspace, so these settings of it were ignored:\n")
	} else {
		b.WriteString("this workspace is not trusted, so these settings of it were ignored:\n")
	}
	writeWidening(&b, ws)
	fmt.Fprintf(&b, "to apply them, run `nova trust %s` (remembered until they change) or pass --trust-workspace (this run only)\n", config.Visible(shellQuote(ws.Key)))
	return b.String()
}

// writeWidening lists the widening settings, one line each.
func writeWidening(w io.Writer, ws *config.Workspace) {
	for _, x := range ws.Widening {
		fmt.Fprintf(w, "  %s: %s %s — %s\n", relFile(ws, x.File), x.Setting, x.Value, x.Says)
	}
}

// relFile is file relative to the workspace, where it is inside.
func relFile(ws *config.Workspace, file string) string {
	if rel, err := filepath.Rel(ws.Key, file); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return file
}

// askTrust asks the person in the trust dialog, before the TUI starts.
func askTrust(ctx context.Context, ios *iostreams.IOStreams, ws *config.Workspace) (bool, error) {
	q := tui.TrustQuestion{Dir: ws.Key, Changed: ws.Changed()}
	for _, x := range ws.Widening {
		q.Settings = append(q.Settings, tui.TrustSetting{File: relFile(ws, x.File), Setting: x.Setting, Value: x.Value, Says: x.Says})
	}
	trusted, err := tui.AskTrust(ctx, q, ios.In, ios.Out)
	if errors.Is(err, tui.ErrNoAnswer) {
		return false, fmt.Errorf("you did not say whether to trust %s, so nothing ran; run nova again to answer (nova trust trusts it without asking)", ws.Key)
	}
	return trusted, err
}

// prefixed puts "nova: " before each line of notice that is not a list
// item, for standard error.
func prefixed(notice string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(notice, "\n") {
		if line != "" && !strings.HasPrefix(line, "  ") {
			b.WriteString("nova: ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell if it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TrustOptions are the inputs of `nova trust`.
type TrustOptions struct {
	IO     *iostreams.IOStreams
	Dir    string
	Revoke bool
}

func newCmdTrust(ios *iostreams.IOStreams, runF func(context.Context, *TrustOptions) error) *cobra.Command {
	opts := &TrustOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace: apply all of its own settings",
		Long: `A workspace's .novacode/settings.json and .novacode/settings.local.json can come
from its repository. Until you trust the workspace, nova applies only the settings
in them that make things stricter or change nothing that matters to your safety:
not those that allow tools or commands, loosen the permission mode or the sandbox,
open other directories, or choose the provider, its URL or its API key.

nova trust lists those settings and trusts the workspace (DIR, default: the current
directory) for exactly them: your answer is kept in your own settings file, and if
they change, nova asks again (print mode ignores them again). The interactive UI
asks the same question itself; --trust-workspace trusts for one run only.

  nova trust              trust the current directory
  nova trust --revoke ~/src/app`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTrust(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "Stop trusting the workspace: its settings that need trust are ignored again")
	return cmd
}

func runTrust(opts *TrustOptions) error {
	dir, err := workspace(opts.Dir)
	if err != nil {
		return err
	}
	data, err := dataDir()
	if err != nil {
		return err
	}
	ws, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if !ws.NeedsTrust() {
		_, err := fmt.Fprintf(out, "Nothing in the settings of %s needs trust: all of them apply already.\n", config.Visible(ws.Key))
		return err
	}
	if err := config.RememberTrust(ws.UserPath, ws.Key, ws.Hash, !opts.Revoke); err != nil {
		return err
	}
	if opts.Revoke {
		fmt.Fprintf(out, "%s is not trusted: these settings of it are ignored from now on:\n", config.Visible(ws.Key))
		writeWidening(out, ws)
		return nil
	}
	fmt.Fprintf(out, "Trusted %s: these settings of it apply from now on:\n", config.Visible(ws.Key))
	writeWidening(out, ws)
	_, err = fmt.Fprintf(out, "If they change, nova asks again (print mode ignores them until you run nova trust again).\n")
	return err
}

// warnSettings reports settings not applied for a reason other than
// trust: keys this version does not know, and user-only settings in a
// project-level file.
func warnSettings(w io.Writer, files []config.File) {
	for _, f := range files {
		if len(f.Unknown) > 0 {
			fmt.Fprintf(w, "nova: warning: %s: unknown settings %s (ignored)\n", f.Path, strings.Join(f.Unknown, ", "))
		}
		for _, k := range f.Ignored {
			fmt.Fprintf(w, "nova: warning: %s: %q can be set only in your own settings file (ignored)\n", f.Path, k)
		}
	}
}
