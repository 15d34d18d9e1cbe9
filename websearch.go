package nova

import (
	"fmt"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
)

// webSearchMaxUses caps the searches of one model call where the protocol
// takes a cap (Anthropic): a model that keeps searching costs at most USD
// 0.08 a call there.
const webSearchMaxUses = 8

// protocolOf is the llm.Origin… of a provider name.
func protocolOf(provider string) string {
	switch provider {
	case providerOpenAI:
		return llm.OriginOpenAIResponses
	case providerOpenAIChat:
		return llm.OriginOpenAIChat
	}
	return llm.OriginAnthropic
}

// webSearchFor returns the provider's web search to offer, from
// --web-search (flag, nil when not given), the webSearch setting and the
// protocol, and whether it was asked for explicitly. Unless turned off it is
// offered where the protocol has one, and the session's permission decides
// whether the model gets it (agent.Agent.WebSearch): without a word about
// it, only where a rule (or bypassPermissions) allows it without asking;
// asked for explicitly (--web-search, "webSearch": true), the interactive UI
// asks once per session otherwise. notice says, once, why web search that
// was asked for explicitly is off.
func webSearchFor(flag *bool, s config.Settings, provider string) (ws *llm.WebSearch, explicit bool, notice string) {
	on := true
	switch {
	case flag != nil:
		on, explicit = *flag, *flag
	case s.WebSearch != nil:
		on, explicit = *s.WebSearch, *s.WebSearch
	}
	if !on {
		return nil, false, ""
	}
	if !llm.HasWebSearch(protocolOf(provider)) {
		if explicit {
			notice = fmt.Sprintf("web search is not available with %s endpoints (Chat Completions has no web search); it is on with --provider anthropic or openai", provider)
		}
		return nil, explicit, notice
	}
	return &llm.WebSearch{MaxUses: webSearchMaxUses}, explicit, ""
}

// printSearchNotice says why print mode goes without a web search that was
// asked for explicitly: nobody can answer the session's question, so only an
// allow rule (or bypassPermissions) lets it through.
func printSearchNotice(ws *llm.WebSearch, explicit bool, checker *permission.Checker) string {
	if ws == nil || !explicit {
		return ""
	}
	switch d := checker.Check(permission.Call{Tool: agent.WebSearchTool, Input: []byte("{}")}); d.Behavior {
	case permission.Allow:
		return ""
	case permission.Deny:
		return fmt.Sprintf("web search is off: %s", d.Reason)
	}
	return "web search needs an allow rule in print mode (--allowedTools WebSearch, or \"WebSearch\" in permissions.allow); going on without it"
}
