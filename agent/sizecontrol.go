package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/novacode/nova/tool"
)

// resultRec is one call's result on its way into history.
type resultRec struct {
	call      ToolCall
	res       tool.Result
	duration  time.Duration
	cancelled bool
	denied    bool
	denial    denial
	spill     string
}

// applySizeControl caps each result, then spills the longest to disk until
// the batch fits the budget. What is spilled is the full original output, so
// nothing is lost; history keeps a preview and the path.
func (r *run) applySizeControl(results []resultRec) {
	capN := r.a.ResultCap
	if capN <= 0 {
		capN = DefaultResultCap
	}
	budget := r.a.BatchBudget
	if budget <= 0 {
		budget = DefaultBatchBudget
	}
	full := make([]string, len(results))
	total := 0
	for i := range results {
		full[i] = results[i].res.Content
		results[i].res.Content = tool.Truncate(results[i].res.Content, capN)
		total += len(results[i].res.Content)
	}
	for total > budget {
		longest := -1
		for i := range results {
			if results[i].spill == "" && len(results[i].res.Content) > spillPreview*2 &&
				(longest < 0 || len(results[i].res.Content) > len(results[longest].res.Content)) {
				longest = i
			}
		}
		if longest < 0 {
			return
		}
		rec := &results[longest]
		before := len(rec.res.Content)
		path, err := r.spill(rec.call.ID, full[longest])
		if err != nil {
			// Disk refused: keep a shorter head+tail instead, still within budget.
			rec.res.Content = tool.Truncate(rec.res.Content, spillPreview*2)
			rec.spill = "-"
		} else {
			rec.spill = path
			rec.res.Content = preview(full[longest], spillPreview) + fmt.Sprintf(
				"\n\n[Output too large for the context (%d characters). The full output is saved at %s — read it with Read (offset/limit) or search it with Grep.]",
				len(full[longest]), path)
		}
		total += len(rec.res.Content) - before
	}
	for i := range results {
		if results[i].spill == "-" {
			results[i].spill = ""
		}
	}
}

func (r *run) spill(callID string, content string) (string, error) {
	dir := r.a.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "nova-spill")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("spill result: %w", err)
	}
	name := sanitize(r.conv.ID) + "-" + sanitize(callID) + ".txt"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return "", fmt.Errorf("spill result: %w", err)
	}
	return path, nil
}

func sanitize(s string) string {
	if s == "" {
		return "x"
	}
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, s)
}

func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return tool.Truncate(s, n)
}
