package nova

import (
	"strings"
	"testing"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
)

func TestWebSearchFor(t *testing.T) {
	tests := []struct {
		name     string
		flag     *bool
		setting  *bool
		provider string
		offered  bool
		explicit bool
		notice   string // a substring; "" for none
	}{
		{name: "by default where allowed: anthropic", provider: providerAnthropic, offered: true},
		{name: "by default where allowed: responses", provider: providerOpenAI, offered: true},
		{name: "chat has none, quietly by default", provider: providerOpenAIChat},
		{name: "chat, asked for by flag", flag: new(true), provider: providerOpenAIChat, explicit: true, notice: "web search is not available with openai-chat endpoints"},
		{name: "chat, asked for in settings", setting: new(true), provider: providerOpenAIChat, explicit: true, notice: "not available with openai-chat"},
		{name: "off in settings", setting: new(false), provider: providerAnthropic},
		{name: "asked for in settings", setting: new(true), provider: providerAnthropic, offered: true, explicit: true},
		{name: "the flag beats the setting", flag: new(true), setting: new(false), provider: providerAnthropic, offered: true, explicit: true},
		{name: "off by flag", flag: new(false), setting: new(true), provider: providerOpenAI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, explicit, notice := webSearchFor(tt.flag, config.Settings{WebSearch: tt.setting}, tt.provider)
			if (ws != nil) != tt.offered || (ws != nil && ws.MaxUses != webSearchMaxUses) || explicit != tt.explicit {
				t.Errorf("web search %+v, explicit %v; want offered %v, explicit %v", ws, explicit, tt.offered, tt.explicit)
			}
			if (notice == "") != (tt.notice == "") || !strings.Contains(notice, tt.notice) {
				t.Errorf("notice %q, want %q", notice, tt.notice)
			}
		})
	}
}

func TestPrintSearchNotice(t *testing.T) {
	ws := &llm.WebSearch{}
	tests := []struct {
		name        string
		explicit    bool
		mode        permission.Mode
		allow, deny []string
		want        string // a substring; "" for none
	}{
		{name: "not asked for: quiet", mode: permission.ModeDefault},
		{name: "asked for, no rule", explicit: true, mode: permission.ModeDefault, want: "--allowedTools WebSearch"},
		{name: "asked for, allowed", explicit: true, mode: permission.ModeDefault, allow: []string{"WebSearch"}},
		{name: "asked for, bypass", explicit: true, mode: permission.ModeBypass},
		{name: "asked for, denied", explicit: true, mode: permission.ModeDefault, deny: []string{"WebSearch"}, want: "denied by rule WebSearch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := printSearchNotice(ws, tt.explicit, permission.NewChecker(tt.mode, tt.allow, tt.deny))
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Errorf("notice %q, want %q", got, tt.want)
			}
		})
	}
}
