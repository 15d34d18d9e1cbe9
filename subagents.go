package nova

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/team"
	"github.com/novacode/nova/tool"
)

// setupTeam gives the session's agent its mailbox, the background
// commands and, unless turned off, the subagents: Task (with the agent
// types of the built-ins and the agents directories), TaskOutput and
// SendMessage. reg is the session's registry, before its first request.
func (s *Session) setupTeam(reg *tool.Registry, a *agent.Agent, sideDir string) {
	a.Env.Mailbox = tool.NewMailbox()
	s.jobs = tool.NewJobs(filepath.Join(sideDir, "bash"))
	s.closers = append(s.closers, s.jobs.Close)
	// Nobody watches a run that is not interactive between prompts: it
	// waits for the background work its model started.
	a.WaitBackground = !s.opts.Interactive
	a.Env.Jobs = s.jobs
	if s.opts.SubagentDepth < 0 || s.opts.Tools != nil {
		return
	}
	home, _ := os.UserHomeDir()
	defs, problems := team.Load(team.Dirs(home, s.dir)...)
	for _, p := range problems {
		fmt.Fprintf(&s.notice, "nova: warning: agent definition: %v\n", p)
	}
	var rec func(agentID, agentType, description, model string) (agent.Recorder, string, error)
	if s.store != nil {
		rec = func(agentID, agentType, description, model string) (agent.Recorder, string, error) {
			t, path, err := s.subagentRecorder(agentID, agentType, description, model)
			if t == nil || err != nil {
				return nil, "", err
			}
			return t, path, nil
		}
	}
	s.team = team.New(team.Config{
		Parent: a, System: s.system, Defs: defs, MaxDepth: s.opts.SubagentDepth, MaxTurns: s.opts.SubagentMaxTurns,
		Preamble: a.Preamble, Recorder: rec, Model: s.subagentModel,
		AfterCall: s.subagentPostToolUse, Stop: s.subagentStop,
	})
	s.closers = append(s.closers, s.team.Close)
	for _, t := range s.team.Tools() {
		reg.Register(t)
	}
	reg.Remove(bareNames(s.opts.Deny)...)
}

// subagentModel resolves the model a Task call or an agent definition
// names: Claude Code's aliases (sonnet, opus, haiku) pick the catalog's
// newest model of that family on Anthropic, and mean the session's model
// elsewhere; any other name is used as it is.
func (s *Session) subagentModel(name string) (string, *llm.ModelInfo, error) {
	s.mu.Lock()
	current := s.agent.Model
	s.mu.Unlock()
	switch strings.ToLower(name) {
	case "sonnet", "opus", "haiku":
		if s.ep.Provider != providerAnthropic {
			name = current
			break
		}
		var family []string
		for _, m := range llm.CatalogModels() {
			if strings.HasPrefix(m, "claude-"+strings.ToLower(name)+"-") {
				family = append(family, m)
			}
		}
		if len(family) == 0 {
			return "", nil, fmt.Errorf("no %s model is known", name)
		}
		slices.Sort(family)
		name = family[len(family)-1]
	}
	info := modelInfo(name, s.settings)
	return name, &info, nil
}

// Subagents lists the agent types the Task tool offers.
func (s *Session) Subagents() []team.Definition {
	if s.team == nil {
		return nil
	}
	return s.team.Defs()
}
