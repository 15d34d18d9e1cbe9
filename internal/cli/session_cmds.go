package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
)

// SessionsOptions are the inputs of `nova sessions`.
type SessionsOptions struct {
	IO   *iostreams.IOStreams
	Cwd  string
	JSON bool
}

func newCmdSessions(ios *iostreams.IOStreams, runF func(context.Context, *SessionsOptions) error) *cobra.Command {
	opts := &SessionsOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List this workspace's sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSessions(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "One JSON object per session")
	return cmd
}

func runSessions(opts *SessionsOptions) error {
	dir, err := workspace(opts.Cwd)
	if err != nil {
		return err
	}
	list, err := nova.ListSessions(dir, "")
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		for _, s := range list {
			if err := enc.Encode(struct {
				ID          string  `json:"id"`
				Updated     string  `json:"updated"`
				FirstPrompt string  `json:"first_prompt"`
				Turns       int     `json:"turns"`
				CostUSD     float64 `json:"cost_usd"`
				Model       string  `json:"model"`
			}{s.ID, s.Updated.Format("2006-01-02T15:04:05Z07:00"), s.FirstPrompt, s.Turns, s.CostUSD, s.Model}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.IO.Out, "No sessions in this workspace yet.")
		return nil
	}
	w := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tTURNS\tCOST\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(w, "%s\t%s\t%d\t$%.4f\t%s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"), s.Turns, s.CostUSD, oneLine(s.FirstPrompt, 60))
	}
	return w.Flush()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// RewindOptions are the inputs of `nova rewind`.
type RewindOptions struct {
	IO        *iostreams.IOStreams
	Cwd       string
	Session   string // "" = the latest
	Turn      int
	List      bool
	FilesOnly bool
}

func newCmdRewind(ios *iostreams.IOStreams, runF func(context.Context, *RewindOptions) error) *cobra.Command {
	opts := &RewindOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "rewind [--session ID] (--list | --turn N [--files-only])",
		Short: "Restore files (and the conversation) to how they were before a turn",
		Long: `Turns are counted per prompt you sent: turn N is your Nth prompt and everything the
model did about it. Restore every file NovaCode changed from turn N on to its content
before turn N, and truncate the conversation so the next --continue starts from there.
--list shows the turns, each labelled by its prompt's first line, with the files it changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.List && opts.Turn <= 0 {
				return errors.New("say which turn to go back to with --turn N (see --list)")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRewind(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	f.StringVar(&opts.Session, "session", "", "Session id (default: the latest)")
	f.IntVar(&opts.Turn, "turn", 0, "Go back to before this turn")
	f.BoolVar(&opts.List, "list", false, "List the turns instead")
	f.BoolVar(&opts.FilesOnly, "files-only", false, "Restore files but keep the conversation")
	return cmd
}

func runRewind(opts *RewindOptions) error {
	dir, err := workspace(opts.Cwd)
	if err != nil {
		return err
	}
	if opts.List {
		id, prompts, err := nova.StoredPrompts(dir, "", opts.Session)
		if err != nil {
			return err
		}
		if len(prompts) == 0 {
			fmt.Fprintf(opts.IO.Out, "Session %s has no prompts to go back to.\n", id)
			return nil
		}
		var b strings.Builder
		writePrompts(&b, prompts, dir, "turn ")
		_, err = io.WriteString(opts.IO.Out, b.String())
		return err
	}
	rep, err := nova.Rewind(dir, "", opts.Session, opts.Turn, opts.FilesOnly)
	if err != nil {
		return err
	}
	for _, r := range rep.Files {
		what := "restored"
		if r.Deleted {
			what = "deleted"
		}
		fmt.Fprintf(opts.IO.Out, "%s %s\n", what, relTo(dir, r.Path))
	}
	if rep.Conversation {
		fmt.Fprintf(opts.IO.Out, "conversation now ends before turn %d (%s); continue it with: nova -c -p \"...\"\n", rep.Prompt.N, oneLine(rep.Prompt.Label, 50))
	}
	return nil
}

// writePrompts lists a session's prompts as the turns rewinding counts,
// each labelled by its first line, with the files it changed (relative to
// the workspace dir when inside it):
//
//	turn 1  fix the build
//	        changed main.go
func writePrompts(b *strings.Builder, prompts []nova.Prompt, dir, prefix string) {
	width := len(strconv.Itoa(len(prompts)))
	for _, p := range prompts {
		head := fmt.Sprintf("%s%*d  ", prefix, width, p.N)
		fmt.Fprintf(b, "%s%s\n", head, oneLine(p.Label, 70))
		for _, f := range p.Files {
			fmt.Fprintf(b, "%*schanged %s\n", len(head), "", relTo(dir, f))
		}
	}
}

func relTo(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}
