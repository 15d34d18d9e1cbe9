package nova

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/novacode/nova/internal/config"
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

// TrustReport is what SetTrust did.
type TrustReport struct {
	// Dir is the workspace, as the user's settings name it.
	Dir string
	// NeedsTrust is false when no setting of the workspace waits for
	// trust: nothing was recorded.
	NeedsTrust bool
	// Settings lists the settings the answer covers, one line each.
	Settings string
}

// SetTrust records in the user's settings whether the workspace at dir is
// trusted (nova trust, nova trust --revoke) for exactly its settings of
// now: if they change, a session asks again. dataDir "" means the default.
func SetTrust(dir, dataDir string, trusted bool) (TrustReport, error) {
	dir, err := workspace(dir)
	if err != nil {
		return TrustReport{}, err
	}
	data, err := dataDirOf(dataDir)
	if err != nil {
		return TrustReport{}, err
	}
	ws, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return TrustReport{}, err
	}
	r := TrustReport{Dir: config.Visible(ws.Key), NeedsTrust: ws.NeedsTrust()}
	if !r.NeedsTrust {
		return r, nil
	}
	if err := config.RememberTrust(ws.UserPath, ws.Key, ws.Hash, trusted); err != nil {
		return r, err
	}
	var b strings.Builder
	writeWidening(&b, ws)
	r.Settings = b.String()
	return r, nil
}
