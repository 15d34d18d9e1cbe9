package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
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
	dir, data, err := workspaceAndData(opts.Cwd)
	if err != nil {
		return err
	}
	list, err := session.List(session.ProjectDir(data, dir))
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

func workspaceAndData(cwd string) (string, string, error) {
	dir, err := workspace(cwd)
	if err != nil {
		return "", "", err
	}
	data, err := dataDir()
	return dir, data, err
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
	dir, data, err := workspaceAndData(opts.Cwd)
	if err != nil {
		return err
	}
	pdir := session.ProjectDir(data, dir)
	id := opts.Session
	if id == "" {
		latest, err := session.Latest(pdir)
		if err != nil {
			return err
		}
		id = latest.ID
	}
	t, st, err := session.Open(pdir, id)
	if err != nil {
		return fmt.Errorf("open session %s: %w", id, err)
	}
	defer t.Close()
	prompts := session.Prompts(st)
	if opts.List {
		if len(prompts) == 0 {
			fmt.Fprintf(opts.IO.Out, "Session %s has no prompts to go back to.\n", id)
			return nil
		}
		var b strings.Builder
		writePrompts(&b, prompts, dir, "turn ")
		_, err := io.WriteString(opts.IO.Out, b.String())
		return err
	}
	p, err := promptNumber(prompts, opts.Turn)
	if err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	plan := session.RewindPlan(st.Snapshots, p.Turn)
	snaps := session.NewSnapshots(pdir, id)
	if err := snaps.Apply(plan); err != nil {
		return fmt.Errorf("restore files: %w", err)
	}
	for _, r := range plan {
		what := "restored"
		if r.Delete {
			what = "deleted"
		}
		fmt.Fprintf(opts.IO.Out, "%s %s\n", what, relTo(dir, r.Path))
	}
	if !opts.FilesOnly {
		if err := t.Append(session.Record{Type: session.TypeRewind, Turn: p.Turn}); err != nil {
			return fmt.Errorf("truncate the conversation: %w", err)
		}
		if err := t.Sync(); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "conversation now ends before turn %d (%s); continue it with: nova -c -p \"...\"\n", p.N, oneLine(p.Label(), 50))
	}
	return nil
}

// writePrompts lists a session's prompts as the turns rewinding counts,
// each labelled by its first line, with the files it changed (relative to
// the workspace dir when inside it):
//
//	turn 1  fix the build
//	        changed main.go
func writePrompts(b *strings.Builder, prompts []session.Prompt, dir, prefix string) {
	width := len(strconv.Itoa(len(prompts)))
	for _, p := range prompts {
		head := fmt.Sprintf("%s%*d  ", prefix, width, p.N)
		fmt.Fprintf(b, "%s%s\n", head, oneLine(p.Label(), 70))
		for _, f := range p.Files {
			fmt.Fprintf(b, "%*schanged %s\n", len(head), "", relTo(dir, f))
		}
	}
}

// promptNumber is the prompt a person means by turn n (from 1, as
// writePrompts numbers them).
func promptNumber(prompts []session.Prompt, n int) (session.Prompt, error) {
	if n < 1 || n > len(prompts) {
		return session.Prompt{}, fmt.Errorf("there is no turn %d: the conversation has %d (one per prompt; list them with nova rewind --list)", n, len(prompts))
	}
	return prompts[n-1], nil
}

func relTo(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// extractMemory proposes durable facts from the run and adds them to the
// project's NOVA.md, saying what it added.
func extractMemory(ctx context.Context, client llm.Client, model, dir string, history []llm.Message, errOut io.Writer) {
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, ".git")) {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	x := &contextinfo.Extractor{Client: retryLines{client, errOut}, Model: model, Path: filepath.Join(root, "NOVA.md")}
	facts, err := x.Propose(ctx, history)
	if err != nil {
		fmt.Fprintf(errOut, "nova: memory extraction failed: %v\n", err)
		return
	}
	if len(facts) == 0 {
		return
	}
	if err := x.Append(facts); err != nil {
		fmt.Fprintf(errOut, "nova: could not update %s: %v\n", x.Path, err)
		return
	}
	fmt.Fprintf(errOut, "nova: added to %s:\n", x.Path)
	for _, f := range facts {
		fmt.Fprintf(errOut, "  - %s\n", f)
	}
}

// retryLines passes a client's streams through and says each retry on w:
// for the model calls outside the loop (memory extraction, after a print-mode
// run), whose retries no event carries.
type retryLines struct {
	c llm.Client
	w io.Writer
}

func (r retryLines) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		for ev, err := range r.c.Stream(ctx, req) {
			if re, ok := ev.(llm.Retrying); ok {
				fmt.Fprintf(r.w, "nova: memory extraction: %v; retrying in %.1f s (%d/%d)\n", re.Err, re.Wait.Seconds(), re.Attempt, re.MaxRetries)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
