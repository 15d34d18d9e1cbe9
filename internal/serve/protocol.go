package serve

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/novacode/nova/event"
)

// ProtocolVersion is the version of PROTOCOL.md the server speaks, in its
// hello frame.
const ProtocolVersion = 1

// message is what a client sends; which fields count depends on Type
// (PROTOCOL.md).
type message struct {
	Type      string `json:"type"`
	Ref       string `json:"ref"`
	Text      string `json:"text"`
	SessionID string `json:"session_id"`
	ID        string `json:"id"`
	AgentID   string `json:"agent_id"`
	Decision  string `json:"decision"`
	Note      string `json:"note"`
	Option    string `json:"option"`
	Answer    string `json:"answer"`
	AfterSeq  int64  `json:"after_seq"`
	Epoch     string `json:"epoch"`
	Mode      string `json:"mode"`
}

// Message types, client to server.
const (
	msgPrompt      = "prompt"
	msgPermission  = "permission"
	msgAnswer      = "answer"
	msgCancel      = "cancel"
	msgResume      = "resume"
	msgSetMode     = "set_mode"
	msgTakeControl = "take_control"
	msgListSession = "list_sessions"
)

// Error codes of error frames.
const (
	codeBadJSON        = "bad_json"
	codeBadRequest     = "bad_request"
	codeNotAttached    = "not_attached"
	codeNotController  = "not_controller"
	codeBusy           = "busy"
	codeUnknownSession = "unknown_session"
	codeUnknownRequest = "unknown_request"
	codeFailed         = "failed"
	codeShuttingDown   = "shutting_down"
)

// Replay kinds of a session frame.
const (
	replayNone       = "none"
	replayRing       = "ring"
	replayTranscript = "transcript"
)

type helloFrame struct {
	Type      string `json:"type"`
	Protocol  int    `json:"protocol"`
	Version   string `json:"version"`
	Workspace string `json:"workspace"`
}

type sessionFrame struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Epoch     string `json:"epoch"`
	LastSeq   int64  `json:"last_seq"`
	Replay    string `json:"replay"`
	Control   bool   `json:"control"`
	Running   bool   `json:"running"`
	Model     string `json:"model"`
	Mode      string `json:"mode"`
}

type controlFrame struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Control   bool   `json:"control"`
}

type errorFrame struct {
	Type  string `json:"type"`
	Error string `json:"error"`
	Code  string `json:"code"`
	Ref   string `json:"ref,omitempty"`
}

type sessionsFrame struct {
	Type     string        `json:"type"`
	Sessions []sessionItem `json:"sessions"`
}

type sessionItem struct {
	ID          string    `json:"id"`
	Created     time.Time `json:"created,omitzero"`
	Updated     time.Time `json:"updated,omitzero"`
	FirstPrompt string    `json:"first_prompt"`
	Turns       int       `json:"turns"`
	CostUSD     float64   `json:"cost_usd"`
	Model       string    `json:"model"`
	Live        bool      `json:"live"`
	Running     bool      `json:"running"`
	Clients     int       `json:"clients"`
}

// Stream frames of the server's own (seq and session_id are added).
type userPromptFrame struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type resolvedFrame struct {
	Type     string        `json:"type"`
	ID       string        `json:"id"`
	AgentID  string        `json:"agent_id,omitempty"`
	Decision string        `json:"decision,omitempty"`
	Note     string        `json:"note,omitempty"`
	Answer   *event.Answer `json:"answer,omitempty"`
}

type modeFrame struct {
	Type string `json:"type"`
	Mode string `json:"mode"`
}

// stamp appends fields to an encoded JSON object: the seq (when > 0), the
// session id (idJSON, already quoted; nil for none) and, when set, the
// replayed or resent mark.
func stamp(obj []byte, seq int64, idJSON []byte, mark string) []byte {
	var b bytes.Buffer
	b.Grow(len(obj) + len(idJSON) + 48)
	b.Write(obj[:len(obj)-1])
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	if seq > 0 {
		sep()
		b.WriteString(`"seq":`)
		b.WriteString(strconv.FormatInt(seq, 10))
	}
	if idJSON != nil {
		sep()
		b.WriteString(`"session_id":`)
		b.Write(idJSON)
	}
	if mark != "" {
		sep()
		b.WriteByte('"')
		b.WriteString(mark)
		b.WriteString(`":true`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
