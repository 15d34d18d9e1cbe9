package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/novacode/nova/tool"
)

// ExitPlanModeInput is the input of ExitPlanMode, as Claude Code names it.
type ExitPlanModeInput struct {
	Plan string `json:"plan" jsonschema:"The plan to ask the user to approve, in Markdown: concise, the steps you will take and the files you will change. The same plan you wrote to the plan file."`
}

// exitPlanMode is ExitPlanMode. Its call is the question: the permission
// chain asks a person about it in plan mode (and denies it elsewhere), and
// the loop puts the plan to them (it implements tool.PlanApprover). Run
// only happens once they approved.
type exitPlanMode struct {
	*tool.Typed[ExitPlanModeInput]
}

// NewExitPlanMode returns the ExitPlanMode tool.
func NewExitPlanMode() tool.Tool {
	return exitPlanMode{tool.New("ExitPlanMode", exitPlanModeDesc, false, nil, runExitPlanMode).
		// It touches nothing other calls could conflict with.
		WithEffects(func(*tool.Env, ExitPlanModeInput) tool.Effects { return tool.Effects{} })}
}

const exitPlanModeDesc = `Use this tool when you are in plan mode and have finished planning: it asks the user to approve your plan before you make any change.

How it works:
- In plan mode you may only read and explore (read-only tools, commands that only read) and write your plan to the plan file a system reminder names. Write the plan there first.
- Then call this tool with the plan in "plan" (Markdown). The user approves it — and you can then carry it out — or asks you to keep planning, with feedback: revise the plan file and call this tool again.
- Use it only to plan the implementation of a task that needs changes to code or files; to research or answer a question, just answer.
- Do not ask "is this plan okay?" in text or with AskUserQuestion: this tool is how to ask.`

// maxPlanBytes bounds a plan read from the plan file.
const maxPlanBytes = 256 << 10

func (exitPlanMode) Plan(env *tool.Env, input json.RawMessage) string {
	var in ExitPlanModeInput
	_ = json.Unmarshal(input, &in)
	if p := strings.TrimSpace(in.Plan); p != "" {
		return p
	}
	if env == nil || env.PlanFile == nil || env.PlanFile() == "" {
		return ""
	}
	f, err := os.Open(env.PlanFile())
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxPlanBytes))
	return strings.TrimSpace(string(b))
}

func (exitPlanMode) KeepPlanning(feedback string) tool.Result {
	msg := "The user has not approved the plan and wants you to keep planning; you are still in plan mode."
	if f := strings.TrimSpace(feedback); f != "" {
		msg += " They said: " + f
	}
	return tool.Errorf("%s\nRevise the plan (in the plan file), then call ExitPlanMode again with the new plan.", msg)
}

func (exitPlanMode) Unattended() tool.Result {
	return tool.Result{Content: "Nobody can approve the plan in this non-interactive run: the run ends here, with your plan as its result. Nothing was changed."}
}

func runExitPlanMode(ctx context.Context, env *tool.Env, in ExitPlanModeInput) (tool.Result, error) {
	msg := "The user approved your plan and plan mode is over. Carry the plan out now, step by step; keep a todo list if it has several steps."
	plan := strings.TrimSpace(in.Plan)
	if env.PlanFile == nil || env.PlanFile() == "" {
		return tool.Result{Content: msg}, nil
	}
	path := env.PlanFile()
	if plan != "" {
		// The approved plan is kept where the next turn's reminder reads
		// it, unless the plan file already says it.
		old, _ := os.ReadFile(path)
		if !bytes.Equal(bytes.TrimSpace(old), []byte(plan)) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
				_ = os.WriteFile(path, []byte(plan+"\n"), 0o600)
			}
		}
	}
	if _, err := os.Stat(path); err == nil {
		msg += fmt.Sprintf(" The plan is in %s; update it there if it changes.", path)
	}
	return tool.Result{Content: msg}, nil
}
