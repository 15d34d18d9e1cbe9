package builtin

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

// mcpTool stands for a tool of an MCP server: its schema comes as JSON.
type mcpTool struct {
	name, desc, schema string
}

func (t mcpTool) Name() string            { return t.name }
func (t mcpTool) Description() string     { return t.desc }
func (t mcpTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (t mcpTool) ReadOnly() bool          { return false }
func (t mcpTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: "ran " + t.name}, nil
}

const issueSchema = `{"type":"object","properties":{"repo":{"type":"string","description":"owner/name"},"title":{"type":"string"}},"required":["repo","title"]}`

func searchRegistry() *tool.Registry {
	reg := tool.NewRegistry(NewRead())
	reg.Register(NewToolSearch(reg))
	for _, t := range []mcpTool{
		{"mcp__github__create_issue", "Create a new issue in a GitHub repository.", issueSchema},
		{"mcp__github__list_issues", "List issues of a repository, newest first.", `{"type":"object"}`},
		{"mcp__github__get_pull_request", "Get a pull request with its review comments.", `{"type":"object"}`},
		{"mcp__slack__post_message", "Post a message to a Slack channel. Works with <#channel> & @user mentions.", `{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}}}`},
		{"mcp__slack__search", "Search messages and files, for example issue links.", `{"type":"object"}`},
		{"mcp__broken__tool", "Its server sent a broken schema.", `{"type":`},
		{"mcp__jira__t1", "Track issue one.", `{}`},
		{"mcp__jira__t2", "Track issue two.", `{}`},
		{"mcp__jira__t3", "Track issue three.", `{}`},
	} {
		reg.Defer(t)
	}
	return reg
}

var functionRE = regexp.MustCompile(`<function>(.*)</function>`)

// functions returns the names in a result's <functions> block, in order,
// checking that each is one JSON object with a description and parameters.
func functions(t *testing.T, content string) []string {
	t.Helper()
	names := []string{}
	for _, m := range functionRE.FindAllStringSubmatch(content, -1) {
		var f struct {
			Description *string         `json:"description"`
			Name        string          `json:"name"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal([]byte(m[1]), &f); err != nil || f.Description == nil || len(f.Parameters) == 0 {
			t.Errorf("bad function line %q: %v", m[1], err)
		}
		names = append(names, f.Name)
	}
	return names
}

func TestToolSearch(t *testing.T) {
	tests := []struct {
		name   string
		reg    *tool.Registry // nil: searchRegistry()
		query  string
		max    int
		found  []string
		isErr  bool
		has    []string
		hasNot []string
	}{
		{name: "words rank name matches first", query: "github issue",
			// both words in the name and the description, both in the name
			// and one in the description, one in the name, then description
			// hits only, by name.
			found: []string{"mcp__github__create_issue", "mcp__github__list_issues", "mcp__github__get_pull_request", "mcp__jira__t1", "mcp__jira__t2"},
			has:   []string{`7 deferred tools matched "github issue"; the best 5 follow (raise max_results for more).`, "Call them by name"}},
		{name: "all of them", query: "github issue", max: 10,
			found: []string{"mcp__github__create_issue", "mcp__github__list_issues", "mcp__github__get_pull_request", "mcp__jira__t1", "mcp__jira__t2", "mcp__jira__t3", "mcp__slack__search"}},
		{name: "max_results", query: "github issue", max: 2,
			found: []string{"mcp__github__create_issue", "mcp__github__list_issues"}},
		{name: "more than matched", query: "slack", max: 10,
			found: []string{"mcp__slack__post_message", "mcp__slack__search"},
			has:   []string{`2 deferred tools matched "slack".`}},
		{name: "description word prefixes", query: "MESSAGES post",
			found: []string{"mcp__slack__post_message", "mcp__slack__search"}},
		{name: "an exact name alone", query: "MCP__slack__search",
			found: []string{"mcp__slack__search"}, has: []string{"Loaded 1 deferred tool."}},
		{name: "mcp is no clue", query: "mcp slack",
			found: []string{"mcp__slack__post_message", "mcp__slack__search"}},
		{name: "the full schema, HTML not escaped", query: "create issue", max: 1,
			found: []string{"mcp__github__create_issue"},
			has:   []string{`<function>{"description":"Create a new issue in a GitHub repository.","name":"mcp__github__create_issue","parameters":` + issueSchema + `}</function>`}},
		{name: "no escaping of markup", query: "post_message", max: 1,
			found: []string{"mcp__slack__post_message"},
			has:   []string{`Works with <#channel> & @user mentions.`}},
		{name: "no match says how to search", query: "kubernetes pods",
			found: []string{},
			has: []string{`No deferred tool matched "kubernetes pods"`, "select:name1,name2",
				"9 tools are deferred, from: mcp__broken (1), mcp__github (3), mcp__jira (3), mcp__slack (2)."}},
		{name: "select in the order given", query: "select:mcp__slack__search, mcp__github__create_issue,mcp__slack__search",
			found: []string{"mcp__slack__search", "mcp__github__create_issue"},
			has:   []string{"Loaded 2 deferred tools."}, hasNot: []string{"No deferred tool"}},
		{name: "select names listed and unknown tools", query: "SELECT:Read,mcp__slack__search,mcp__nope__x",
			found: []string{"mcp__slack__search"},
			has:   []string{"Loaded 1 deferred tool.", "Already in your tool list (call directly): Read.", "No deferred tool is named mcp__nope__x."}},
		{name: "select of unknown tools only", query: "select:mcp__nope__x", isErr: true,
			found: []string{}, has: []string{"No deferred tool is named mcp__nope__x. Search by words"}},
		{name: "select of nothing", query: "select: ,", isErr: true, found: []string{}, has: []string{"select: names no tool"}},
		{name: "a broken schema is named, not sent", query: "select:mcp__broken__tool",
			found: []string{}, has: []string{"mcp__broken__tool: its input schema is not valid JSON"}},
		{name: "empty query", query: "  ", isErr: true, found: []string{}, has: []string{"The query is empty"}},
		{name: "nothing deferred", reg: tool.NewRegistry(NewRead()), query: "github",
			found: []string{}, has: []string{"No tools are deferred in this session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tt.reg
			if reg == nil {
				reg = searchRegistry()
			}
			ts := NewToolSearch(reg)
			res := run(t, ts, newEnv(t), ToolSearchInput{Query: tt.query, MaxResults: tt.max})
			if res.IsError != tt.isErr {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.isErr, res.Content)
			}
			if diff := cmp.Diff(tt.found, functions(t, res.Content)); diff != "" {
				t.Errorf("found (-want +got):\n%s\n%s", diff, res.Content)
			}
			for _, s := range tt.has {
				if !strings.Contains(res.Content, s) {
					t.Errorf("result lacks %q:\n%s", s, res.Content)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(res.Content, s) {
					t.Errorf("result has %q:\n%s", s, res.Content)
				}
			}
		})
	}
}

func TestToolSearchDefinition(t *testing.T) {
	ts := NewToolSearch(tool.NewRegistry())
	if ts.Name() != "ToolSearch" || !ts.ReadOnly() {
		t.Errorf("name %q, read-only %v", ts.Name(), ts.ReadOnly())
	}
	for _, s := range []string{"MCP", "deferred", "select:", "<functions>"} {
		if !strings.Contains(ts.Description(), s) {
			t.Errorf("description does not mention %q", s)
		}
	}
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(ts.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"query"}, s.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if _, ok := s.Properties["max_results"]; !ok {
		t.Errorf("no max_results in %s", ts.Schema())
	}
	if fx := tool.EffectsOf(ts, newEnv(t), json.RawMessage(`{"query":"x"}`)); !cmp.Equal(fx, tool.Effects{}) {
		t.Errorf("effects = %+v, want none", fx)
	}
	// A deferred tool loaded by a search is callable through the registry.
	reg := searchRegistry()
	tl, ok := reg.Get("mcp__github__create_issue")
	if !ok {
		t.Fatal("deferred tool not found by name")
	}
	if res := run(t, tl, newEnv(t), map[string]string{}); res.Content != "ran mcp__github__create_issue" {
		t.Errorf("got %+v", res)
	}
}
