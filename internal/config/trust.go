package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Project-level files — .novacode/settings.json and .novacode/settings.local.json
// — both live in the workspace, and a repository can ship either. Until the
// person trusts the workspace, only what cannot hurt them applies from
// those files: settings that make things stricter, and settings that change
// neither what tools may do nor where requests go. The rest waits for
// trust. Every setting is classified in classes below; a Settings field
// that is not is treated as ClassWidening, and TestEverySettingIsClassified
// fails until it is.

// Class says how a setting in a project-level file is treated before the
// person trusts the workspace.
type Class int

const (
	// ClassWidening settings apply only in a trusted workspace: they loosen
	// permissions or the sandbox, choose where requests and the API key
	// go, or run programs. It is the zero value, so that a setting nobody
	// classified is treated as one.
	ClassWidening Class = iota
	// ClassNarrowing settings only make things stricter; they always apply.
	ClassNarrowing
	// ClassNeutral settings change neither what tools may do nor where requests
	// go (the model, its limits and prices, retries); they always apply.
	ClassNeutral
	// ClassByValue settings narrow or widen depending on their value, judged
	// against the person's own settings: permissions.defaultMode, sandbox.
	ClassByValue
	// ClassMembers marks an object whose members are classified one by one
	// (permissions).
	ClassMembers
	// ClassUserOnly settings are read from the user's own file only; a
	// project's is ignored, trusted or not.
	ClassUserOnly
)

func (c Class) String() string {
	switch c {
	case ClassWidening:
		return "widening"
	case ClassNarrowing:
		return "narrowing"
	case ClassNeutral:
		return "neutral"
	case ClassByValue:
		return "by value"
	case ClassMembers:
		return "members"
	case ClassUserOnly:
		return "user only"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// setting is how one key of a settings file is treated.
type setting struct {
	class Class
	// widens decides a ClassByValue setting: whether value is looser than
	// what the person's own settings give.
	widens func(value json.RawMessage, own baseline) bool
	// says describes what a widening value does once applied, in plain
	// words, one Widening per effect (File unset).
	says func(name string, value json.RawMessage, own baseline) []Widening
}

// classes holds every key a settings file may have, by its path ("sandbox",
// "permissions.allow"). Why each is where it is:
//
//   - provider, providers: they choose where requests go and which key is
//     sent with them; a project must never send the person's API key to a
//     URL it chose, nor the prompts to an account whose key it ships.
//   - permissions.allow, permissions.additionalDirectories: they let calls
//     run without asking, or open directories outside the workspace.
//   - permissions.ask, permissions.deny: they only add questions and
//     refusals.
//   - permissions.defaultMode, sandbox: stricter than or as strict as the
//     person's own (or the built-in) value narrows; looser widens, and so
//     does a value this version does not know.
//   - webSearch: false narrows; true widens only where the person turned
//     web search off (true only lets the session ask; a rule still decides).
//   - model, contextWindow, maxOutputTokens, compactThreshold, prices,
//     thinking, maxRetries, timeouts: what the endpoint the person chose is
//     asked and how costs are shown. They can cost money (a bigger model,
//     more thinking) but reach no other host and widen no permission.
//   - workspaces: which workspaces are trusted; a project saying so would
//     trust itself.
//   - env: which credentials commands may see; a project could hand them to
//     the commands its text talks the model into.
//   - mcpServers: each server is a program to run (or an endpoint to send
//     headers to); from a project-level file it starts only in a trusted
//     workspace, whose trust question names each one. (.mcp.json is not a
//     settings file: the SDK asks about each of its servers.)
//   - enabledMcpjsonServers, enableAllProjectMcpServers: true: they would
//     let a repository approve its own .mcp.json; in a project-level file
//     they count only once the person trusted exactly that. The person's
//     own answers are kept in their file (workspaces[dir].mcpjsonServers).
//   - disabledMcpjsonServers, enableAllProjectMcpServers: false: they only
//     keep servers from starting.
//   - mcpToolSearch: which MCP tools are listed and which wait behind
//     ToolSearch; every tool stays callable and asked about the same.
//   - autoMemory: whether the TUI proposes facts for the memory files
//     when a run ends; nothing is written without the person's consent.
//   - hooks: each is a shell command NovaCode runs, outside the sandbox
//     and with the person's environment, at an event the repository
//     chooses; a PreToolUse or PermissionRequest hook may also approve
//     calls. From a project-level file they run only in a trusted
//     workspace, whose trust question names each command.
var classes = map[string]setting{
	"provider":                          {class: ClassWidening, says: saysProvider},
	"providers":                         {class: ClassWidening, says: saysProviders},
	"model":                             {class: ClassNeutral},
	"contextWindow":                     {class: ClassNeutral},
	"maxOutputTokens":                   {class: ClassNeutral},
	"compactThreshold":                  {class: ClassNeutral},
	"prices":                            {class: ClassNeutral},
	"thinking":                          {class: ClassNeutral},
	"maxRetries":                        {class: ClassNeutral},
	"timeouts":                          {class: ClassNeutral},
	"sandbox":                           {class: ClassByValue, widens: sandboxWidens, says: saysSandbox},
	"webSearch":                         {class: ClassByValue, widens: webSearchWidens, says: saysWebSearch},
	"permissions":                       {class: ClassMembers},
	"permissions.allow":                 {class: ClassWidening, says: saysAllow},
	"permissions.ask":                   {class: ClassNarrowing},
	"permissions.deny":                  {class: ClassNarrowing},
	"permissions.additionalDirectories": {class: ClassWidening, says: saysDirectories},
	"permissions.defaultMode":           {class: ClassByValue, widens: modeWidens, says: saysMode},
	"mcpServers":                        {class: ClassWidening, says: saysMCPServers},
	"enabledMcpjsonServers":             {class: ClassWidening, says: saysEnabledMcpjson},
	"disabledMcpjsonServers":            {class: ClassNarrowing},
	"enableAllProjectMcpServers":        {class: ClassByValue, widens: trueWidens, says: saysEnableAllMcpjson},
	"mcpToolSearch":                     {class: ClassNeutral},
	"autoMemory":                        {class: ClassNeutral},
	"hooks":                             {class: ClassWidening, says: saysHooks},
	"workspaces":                        {class: ClassUserOnly},
	"env":                               {class: ClassUserOnly},
	"$schema":                           {class: ClassNeutral},
}

// ClassOf returns the class of the setting at path ("sandbox",
// "permissions.allow"); ok is false for a key no version of Settings has.
func ClassOf(path string) (c Class, ok bool) {
	if s, ok := classes[path]; ok {
		return s.class, true
	}
	if slices.Contains(fieldNames, path) {
		return ClassWidening, true
	}
	return 0, false
}

// fieldNames are the JSON names of Settings' fields.
var fieldNames = func() []string {
	var names []string
	t := reflect.TypeFor[Settings]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}()

// canonical returns the setting path that key, a member of the object at
// prefix ("" for the top level, "permissions." inside permissions), stands
// for. It folds case as encoding/json does when it fills Settings (so
// "SANDBOX" and "ſandbox" are "sandbox"); exact reports whether key was
// written as the path says. ok is false for a key nothing reads.
func canonical(prefix, key string) (path string, exact, ok bool) {
	for name := range classes {
		leaf, found := strings.CutPrefix(name, prefix)
		if !found || strings.Contains(leaf, ".") {
			continue
		}
		if leaf == key {
			return name, true, true
		}
		if strings.EqualFold(leaf, key) {
			path, ok = name, true
		}
	}
	if ok || prefix != "" {
		return path, false, ok
	}
	for _, name := range fieldNames {
		if name == key {
			return name, true, true
		}
		if strings.EqualFold(name, key) {
			path, ok = name, true
		}
	}
	return path, false, ok
}

// baseline is what the person's own settings give for the settings judged
// by value.
type baseline struct {
	mode      string // permissions.defaultMode; "default" when unset
	sandbox   string // "auto" when unset
	webSearch bool   // true when unset
}

// ownBaseline reads the baseline from the user's file, as the permission
// layer reads it: the last permissions.defaultMode string under keys
// written exactly so (it does not fold case).
func ownBaseline(user *File) baseline {
	b := baseline{mode: "default", sandbox: "auto", webSearch: true}
	if user == nil {
		return b
	}
	if s := user.Settings.Sandbox; s != nil {
		b.sandbox = normalSandbox(*s)
	}
	if w := user.Settings.WebSearch; w != nil {
		b.webSearch = *w
	}
	ms, _ := members(user.Data)
	for _, m := range ms {
		var s string
		if m.path == "permissions.defaultMode" && m.exact && json.Unmarshal(m.value, &s) == nil && s != "" {
			b.mode = s
		}
	}
	return b
}

// Ranks, strictest first.
var (
	modeRank    = map[string]int{"plan": 0, "default": 1, "acceptEdits": 2, "bypassPermissions": 3}
	sandboxRank = map[string]int{"on": 0, "auto": 1, "off": 2}
)

// rank is r's rank in ranks; a value that is not there ranks as fallback.
func rank(ranks map[string]int, r, fallback string) int {
	if n, ok := ranks[r]; ok {
		return n
	}
	return ranks[fallback]
}

// modeWidens: a mode looser than the person's, or one this version does not
// know (the permission layer would refuse it, but only once applied). An
// empty string sets nothing.
func modeWidens(v json.RawMessage, own baseline) bool {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return true
	}
	n, ok := modeRank[s]
	return s != "" && (!ok || n > rank(modeRank, own.mode, "default"))
}

// normalSandbox reads a sandbox value as permission/sandbox.ParseMode does.
func normalSandbox(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "auto"
	}
	return s
}

func sandboxWidens(v json.RawMessage, own baseline) bool {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return true
	}
	n, ok := sandboxRank[normalSandbox(s)]
	return !ok || n > rank(sandboxRank, own.sandbox, "auto")
}

// webSearchWidens: web search on where the person turned it off (or a value
// that is no boolean).
func webSearchWidens(v json.RawMessage, own baseline) bool {
	var on bool
	if err := json.Unmarshal(v, &on); err != nil {
		return true
	}
	return on && !own.webSearch
}

func saysWebSearch(name string, v json.RawMessage, _ baseline) []Widening {
	return []Widening{{Setting: name, Value: compact(v), Says: "offers the model provider's web search, which you turned off"}}
}

// trueWidens: a boolean that widens when true (or when it is no boolean).
func trueWidens(v json.RawMessage, _ baseline) bool {
	var on bool
	if err := json.Unmarshal(v, &on); err != nil {
		return true
	}
	return on
}

func saysMCPServers(name string, v json.RawMessage, _ baseline) []Widening {
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(v, &defs); err != nil {
		return []Widening{{Setting: name, Value: compact(v), Says: "defines MCP servers: programs NovaCode starts, or endpoints it connects to"}}
	}
	var out []Widening
	for _, n := range sortedKeys(defs) {
		var d struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			URL     string   `json:"url"`
		}
		_ = json.Unmarshal(defs[n], &d)
		w := Widening{Setting: name + "." + n, Value: compact(defs[n])}
		if d.URL != "" && d.Command == "" {
			w.Says = fmt.Sprintf("connects to the MCP server %s at %s, with the headers it defines", n, d.URL)
		} else {
			w.Says = fmt.Sprintf("runs the MCP server %s: %s", n, strings.Join(append([]string{d.Command}, d.Args...), " "))
		}
		out = append(out, w)
	}
	return out
}

func saysEnabledMcpjson(name string, v json.RawMessage, _ baseline) []Widening {
	var out []Widening
	eachString(v, func(s, raw string) {
		if s == "" {
			s = raw
		}
		out = append(out, Widening{Setting: name, Value: raw,
			Says: fmt.Sprintf("starts the MCP server %s of the project's .mcp.json, whatever it runs, without asking you", s)})
	})
	return out
}

func saysEnableAllMcpjson(name string, v json.RawMessage, _ baseline) []Widening {
	return []Widening{{Setting: name, Value: compact(v),
		Says: "starts every MCP server the project's .mcp.json defines, now or after it changes, without asking you"}}
}

// hookWhen says when a hook of event runs, for matcher.
func hookWhen(event, matcher string) string {
	calls := "every tool call"
	if matcher != "" && matcher != "*" {
		calls = "each call of " + matcher
	}
	switch event {
	case "PreToolUse":
		return "before " + calls + ", and may approve, block or change it"
	case "PostToolUse":
		return "after " + calls
	case "PostToolUseFailure":
		return "after " + calls + " that fails"
	case "PermissionRequest":
		return "when " + calls + " would be asked about, and may answer for you"
	case "UserPromptSubmit":
		return "with every prompt you send"
	case "Stop":
		return "whenever the model finishes"
	case "SubagentStop":
		return "whenever a subagent finishes"
	case "PreCompact":
		return "before the conversation is compacted"
	case "SessionStart":
		return "when a session starts"
	case "SessionEnd":
		return "when a session ends"
	case "Notification":
		return "whenever NovaCode waits for you"
	}
	return "at the " + event + " event"
}

func saysHooks(name string, v json.RawMessage, _ baseline) []Widening {
	var events map[string][]HookGroup
	if err := json.Unmarshal(v, &events); err != nil {
		return []Widening{{Setting: name, Value: compact(v), Says: "defines hooks: commands NovaCode runs at its events"}}
	}
	var out []Widening
	for _, ev := range sortedKeys(events) {
		for _, g := range events[ev] {
			for _, h := range g.Hooks {
				raw, _ := json.Marshal(h.Command)
				out = append(out, Widening{Setting: name + "." + ev, Value: string(raw),
					Says: fmt.Sprintf("runs %s %s, outside the sandbox, with your environment", h.Command, hookWhen(ev, g.Matcher))})
			}
		}
	}
	if len(out) == 0 {
		out = append(out, Widening{Setting: name, Value: compact(v), Says: "defines hooks: commands NovaCode runs at its events"})
	}
	return out
}

// Widening is one project-level setting that applies only in a trusted
// workspace.
type Widening struct {
	// File is the settings file it is in.
	File string
	// Setting is its name: "providers.anthropic.baseURL", "permissions.allow".
	Setting string
	// Value is its value as JSON, or "…" for an API key.
	Value string
	// Says is what it does once applied, in plain words: "sends requests
	// (and your API key) to http://…".
	Says string
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

func saysProvider(name string, v json.RawMessage, _ baseline) []Widening {
	var s string
	_ = json.Unmarshal(v, &s)
	return []Widening{{Setting: name, Value: compact(v),
		Says: fmt.Sprintf("switches to the %s provider: your prompts, and the API key you set for it, go to its endpoint", s)}}
}

func saysProviders(name string, v json.RawMessage, _ baseline) []Widening {
	var ps map[string]map[string]json.RawMessage
	if err := json.Unmarshal(v, &ps); err != nil {
		return []Widening{{Setting: name, Value: compact(v), Says: "sets the endpoints requests and API keys go to"}}
	}
	var out []Widening
	for _, p := range sortedKeys(ps) {
		for _, f := range sortedKeys(ps[p]) {
			w := Widening{Setting: name + "." + p + "." + f, Value: compact(ps[p][f])}
			var s string
			_ = json.Unmarshal(ps[p][f], &s)
			switch {
			case strings.EqualFold(f, "baseURL"):
				w.Says = fmt.Sprintf("sends requests (and your API key) to %s", s)
			case strings.EqualFold(f, "apiKey"):
				w.Value = `"…"`
				w.Says = fmt.Sprintf("uses an API key of its choosing for %s: your prompts go to that key's account", p)
			default:
				w.Says = fmt.Sprintf("sets %s for the %s endpoint", f, p)
			}
			out = append(out, w)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// eachString calls f with every string of a JSON array, and with the JSON of
// every other element.
func eachString(v json.RawMessage, f func(s, raw string)) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		f("", compact(v))
		return
	}
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil {
			s = ""
		}
		f(s, compact(it))
	}
}

func saysAllow(name string, v json.RawMessage, _ baseline) []Widening {
	var out []Widening
	eachString(v, func(rule, raw string) {
		says := fmt.Sprintf("lets %s run without asking", rule)
		switch {
		case rule == "Bash":
			says = "lets every command run without asking"
		case rule == "":
			says = "adds " + raw + " to the rules that run without asking"
		}
		out = append(out, Widening{Setting: name, Value: raw, Says: says})
	})
	return out
}

func saysDirectories(name string, v json.RawMessage, _ baseline) []Widening {
	var out []Widening
	eachString(v, func(dir, raw string) {
		if dir == "" {
			dir = raw
		}
		out = append(out, Widening{Setting: name, Value: raw,
			Says: fmt.Sprintf("opens %s to tools and commands as if it were part of the workspace", dir)})
	})
	return out
}

func saysMode(name string, v json.RawMessage, own baseline) []Widening {
	var s string
	_ = json.Unmarshal(v, &s)
	says := fmt.Sprintf("sets the permission mode to %s, looser than yours (%s)", compact(v), own.mode)
	_, known := modeRank[s]
	switch {
	case s == "bypassPermissions":
		says = "lets every command run without asking (bypassPermissions)"
	case s == "acceptEdits":
		says = "lets file edits happen without asking (acceptEdits)"
	case !known:
		says = fmt.Sprintf("sets a permission mode this version does not know, %s", compact(v))
	}
	return []Widening{{Setting: name, Value: compact(v), Says: says}}
}

func saysSandbox(name string, v json.RawMessage, own baseline) []Widening {
	var s string
	_ = json.Unmarshal(v, &s)
	says := fmt.Sprintf("sets the sandbox to %s", compact(v))
	switch normalSandbox(s) {
	case "off":
		says = "runs commands outside the OS sandbox"
	case "auto":
		says = "lets commands run unsandboxed where no sandbox is available (yours is \"on\")"
	}
	return []Widening{{Setting: name, Value: compact(v), Says: says}}
}

// Visible escapes what a terminal would not print as text: the strings
// come from the repository and are shown to the person who decides about
// it, so an escape sequence or a line break must not redraw or fake that
// question, nor a bidirectional override reorder it.
func Visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "\\u%04x", r)
	}
	return b.String()
}

// classified is a project-level file as applied in a trusted workspace and
// in one that is not.
type classified struct {
	trusted, untrusted File
	widening           []Widening
	// digest is what the hash of the workspace's widening settings covers
	// for this file: layer, path and compact value of each widening member.
	digest []byte
}

// classify sorts a project-level file's members. Widening ones are left out
// of the untrusted version, user-only ones out of both.
func classify(f File, own baseline) (classified, error) {
	c := classified{trusted: f, untrusted: f}
	ms, err := members(f.Data)
	if err != nil {
		return c, fmt.Errorf("settings file %s: %w", f.Path, err)
	}
	var never, widening []member
	for _, m := range ms {
		s, known := classes[m.path]
		if !known {
			if m.path == "" {
				continue // a key nothing reads; reported as unknown
			}
			s = setting{class: ClassWidening}
		}
		if string(m.value) == "null" {
			continue // sets nothing
		}
		switch {
		case s.class == ClassUserOnly:
			never = append(never, m)
			f.Ignored = append(f.Ignored, m.path)
		case s.class == ClassWidening, s.class == ClassByValue && s.widens(m.value, own):
			widening = append(widening, m)
			var ws []Widening
			if s.says != nil {
				ws = s.says(m.path, m.value, own)
			} else {
				ws = []Widening{{Setting: m.path, Value: compact(m.value), Says: "sets " + m.path}}
			}
			for _, w := range ws {
				w.File = f.Path
				w.Setting, w.Value, w.Says = Visible(w.Setting), Visible(w.Value), Visible(w.Says)
				c.widening = append(c.widening, w)
			}
			c.digest = fmt.Appendf(c.digest, "%s\x00%s\x00%s\n", f.Layer, m.path, compact(m.value))
		}
	}
	if c.trusted, err = withhold(f, never); err != nil {
		return c, err
	}
	if c.untrusted, err = withhold(f, append(never, widening...)); err != nil {
		return c, err
	}
	return c, nil
}

// stub replaces a member that is withheld: a key nothing reads, whose null
// value sets nothing.
const stub = `"":null`

// shortStub stands in for a member whose key is shorter than stub.
const shortStub = `"":0`

// withhold returns f without the members ms: each becomes stub padded with
// blanks, so that every other byte keeps its line and column (the
// permission layer reports rules by position) and everything that reads
// the file — Settings, the permission rules — reads the same thing.
func withhold(f File, ms []member) (File, error) {
	if len(ms) == 0 {
		return f, nil
	}
	data := bytes.Clone(f.Data)
	for _, m := range ms {
		// A key string holds no line break; every key that is ever
		// withheld is at least five characters long.
		st := stub
		if m.keyEnd-m.start < len(st) {
			// "env" is shorter than the stub: a shorter one still
			// parses the same (a key nothing reads).
			st = shortStub
		}
		if m.keyEnd-m.start < len(st) {
			return f, fmt.Errorf("settings file %s: cannot leave out %s", f.Path, m.path)
		}
		copy(data[m.start:], st)
		for i := m.start + len(st); i < m.end; i++ {
			if data[i] != '\n' && data[i] != '\r' {
				data[i] = ' '
			}
		}
	}
	out, err := parse(f.Path, data)
	if err != nil {
		return f, err
	}
	out.Layer, out.Unknown, out.Ignored = f.Layer, f.Unknown, f.Ignored
	return out, nil
}

// hashOf names a set of widening settings: a trust answer is remembered
// for it, and asked again when it changes.
func hashOf(digests ...[]byte) string {
	h := sha256.New()
	n := 0
	for _, d := range digests {
		h.Write(d)
		n += len(d)
	}
	if n == 0 {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// member is one member of an object in a settings file.
type member struct {
	path  string // the setting it stands for; "" when nothing reads it
	exact bool   // its key, and its parent's, are written as path says
	value json.RawMessage
	// start is where its key starts, keyEnd where the key ends and end
	// where its value ends.
	start, keyEnd, end int
}

// members lists the members of a file's top-level object and of a
// "permissions" object in it (those before the permissions member itself),
// in file order.
func members(data []byte) ([]member, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	s := &scanner{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	tok, _, err := s.next()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil // null: sets nothing
	}
	var out []member
	if err := s.object("", true, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// scanner reads a settings file token by token, knowing every token's
// offset.
type scanner struct {
	data []byte
	dec  *json.Decoder
}

// next returns the next token and where it starts.
func (s *scanner) next() (json.Token, int, error) {
	off := s.blank(int(s.dec.InputOffset()))
	tok, err := s.dec.Token()
	return tok, off, err
}

// blank skips what may separate tokens.
func (s *scanner) blank(off int) int {
	for off < len(s.data) && strings.IndexByte(" \t\r\n,:", s.data[off]) >= 0 {
		off++
	}
	return off
}

func (s *scanner) object(prefix string, exactParent bool, out *[]member) error {
	for {
		tok, start, err := s.next()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			return nil
		}
		key, _ := tok.(string)
		m := member{start: start, keyEnd: int(s.dec.InputOffset())}
		var exact bool
		m.path, exact, _ = canonical(prefix, key)
		m.exact = exact && exactParent
		valueStart := s.blank(m.keyEnd)
		tok, _, err = s.next()
		if err != nil {
			return err
		}
		if m.path == "permissions" && tok == json.Delim('{') {
			err = s.object("permissions.", m.exact, out)
		} else {
			err = s.skipRest(tok)
		}
		if err != nil {
			return err
		}
		m.end = int(s.dec.InputOffset())
		m.value = json.RawMessage(s.data[valueStart:m.end])
		*out = append(*out, m)
	}
}

// skipRest consumes the rest of a value whose first token was tok.
func (s *scanner) skipRest(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
