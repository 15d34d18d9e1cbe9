package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
		return writeSessionsJSON(opts.IO.Out, list)
	}
	return writeSessions(opts.IO.Out, list, time.Local)
}

// writeSessions lists sessions as a table, each session's subagents
// indented under it (their ids are what nova --resume takes), labelled by
// their type and task instead of the prompt their parent wrote them.
func writeSessions(out io.Writer, list []nova.SessionInfo, loc *time.Location) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(out, "No sessions in this workspace yet.")
		return err
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tTURNS\tCOST\tFIRST PROMPT")
	var rows func(indent string, list []nova.SessionInfo)
	rows = func(indent string, list []nova.SessionInfo) {
		for _, s := range list {
			label := s.FirstPrompt
			if s.Parent != "" && (s.AgentType != "" || s.Description != "") {
				label = strings.TrimPrefix(s.AgentType+": "+cmp.Or(s.Description, s.FirstPrompt), ": ")
			}
			fmt.Fprintf(w, "%s%s\t%s\t%d\t$%.4f\t%s\n", indent, s.ID, s.Updated.In(loc).Format("2006-01-02 15:04"), s.Turns, s.CostUSD, oneLine(label, 60))
			rows(indent+"  ", s.Subagents)
		}
	}
	rows("", list)
	return w.Flush()
}

// sessionJSON is a session in nova sessions --json.
type sessionJSON struct {
	ID          string  `json:"id"`
	Updated     string  `json:"updated"`
	FirstPrompt string  `json:"first_prompt"`
	Turns       int     `json:"turns"`
	CostUSD     float64 `json:"cost_usd"`
	Model       string  `json:"model"`
	// A subagent's: the session that started it, its id there, its type
	// and its task's description.
	Parent      string `json:"parent,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	AgentType   string `json:"agent_type,omitempty"`
	Description string `json:"description,omitempty"`
	// Subagents are the session's subagents, oldest first.
	Subagents []sessionJSON `json:"subagents,omitempty"`
}

// writeSessionsJSON writes one JSON object per line for each session, its
// subagents nested in it: a line is still a session of the person's, as
// before subagents were kept.
func writeSessionsJSON(out io.Writer, list []nova.SessionInfo) error {
	var conv func(s nova.SessionInfo) sessionJSON
	conv = func(s nova.SessionInfo) sessionJSON {
		j := sessionJSON{ID: s.ID, Updated: s.Updated.Format(time.RFC3339), FirstPrompt: s.FirstPrompt, Turns: s.Turns, CostUSD: s.CostUSD,
			Model: s.Model, Parent: s.Parent, AgentID: s.AgentID, AgentType: s.AgentType, Description: s.Description}
		for _, c := range s.Subagents {
			j.Subagents = append(j.Subagents, conv(c))
		}
		return j
	}
	enc := json.NewEncoder(out)
	for _, s := range list {
		if err := enc.Encode(conv(s)); err != nil {
			return err
		}
	}
	return nil
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
