package acp

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
)

// Prompt runs one prompt: its events stream to the editor as
// session/update notifications, what the chain asks and the model's
// questions go to the editor as session/request_permission, and the answer
// says why the turn ended. session/cancel cancels ctx (the SDK does):
// tools stop, and the answer is cancelled.
func (a *agent) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	if !a.enter() {
		return acpsdk.PromptResponse{}, errClosed
	}
	defer a.calls.Done()
	s, err := a.session(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	text, images, err := promptOf(p.Prompt, s.dir)
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	text = expandCommand(s.commands, text)

	// What is asked of the editor is asked beside the run, so that the
	// events of calls still running reach it meanwhile; asks ends with
	// the run, and each is waited for before the answer.
	asks, stopAsks := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stopAsks()
		wg.Wait()
	}()
	m := newMapper(s.dir)
	var done *event.LoopComplete
	var runErr error
	for e, err := range s.nova.SendWith(ctx, text, images) {
		if err != nil {
			runErr = err
			continue
		}
		inner, parent := event.Inner(e)
		switch in := inner.(type) {
		case *event.PermissionRequest:
			c, isNew := permissionCall(m, in, parent)
			if isNew {
				a.update(s, c.toolCall(acpsdk.ToolCallStatusPending))
			} else {
				a.update(s, acpsdk.UpdateToolCall(acpsdk.ToolCallId(in.ID), acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusPending)))
			}
			req := permissionRequest(s.id, c, in)
			wg.Go(func() { a.askPermission(asks, s, in, req, isNew) })
		case *event.Question:
			c, ok := m.call(in.ID)
			if !ok {
				c = newCall(s.dir, in.ID, "AskUserQuestion", nil)
			}
			req, ok := questionRequest(s.id, c, in)
			if !ok {
				in.Respond(event.Answer{Text: noAnswer})
				continue
			}
			wg.Go(func() { a.askQuestion(asks, in, req) })
		case event.LoopComplete:
			if parent == "" {
				done = &in
			}
		default:
			for _, u := range m.updates(e) {
				a.update(s, u)
			}
		}
		if u := s.modeChange(); u != nil {
			a.update(s, *u)
		}
	}
	stopAsks()
	wg.Wait()
	if u := s.modeChange(); u != nil {
		a.update(s, *u)
	}
	reason, err := stopReason(done, runErr, ctx.Err() != nil)
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acpsdk.PromptResponse{StopReason: reason}, nil
}

// askPermission asks the editor about r and answers it. An allowed call is
// marked in progress before the answer lets it start. A request that is no
// call of the model's (own: the session's web search) has no events of its
// own to follow: its answer ends it.
func (a *agent) askPermission(ctx context.Context, s *session, r *event.PermissionRequest, req acpsdk.RequestPermissionRequest, own bool) {
	resp, err := a.conn.RequestPermission(ctx, req)
	d := decision(r, resp, err)
	status := acpsdk.ToolCallStatusInProgress
	switch {
	case own && d.Behavior == event.Allow:
		status = acpsdk.ToolCallStatusCompleted
	case own:
		status = acpsdk.ToolCallStatusFailed
	case d.Behavior != event.Allow:
		status = "" // the call's own events say it was denied
	}
	if status != "" {
		a.update(s, acpsdk.UpdateToolCall(req.ToolCall.ToolCallId, acpsdk.WithUpdateStatus(status)))
	}
	r.Respond(d)
}

// askQuestion puts a question to the editor as a permission request and
// answers it.
func (a *agent) askQuestion(ctx context.Context, q *event.Question, req acpsdk.RequestPermissionRequest) {
	resp, err := a.conn.RequestPermission(ctx, req)
	q.Respond(answer(q, resp, err))
}

// stopReason is why a prompt's turn ended, from the run's loop_complete:
// end_turn, refusal, max_turn_requests, max_tokens (the output limit ended
// the run) or cancelled. A run that failed otherwise is the request's
// error. cancelled says session/cancel (or the connection's end) cancelled
// the prompt.
func stopReason(done *event.LoopComplete, runErr error, cancelled bool) (acpsdk.StopReason, error) {
	if done == nil {
		if cancelled {
			return acpsdk.StopReasonCancelled, nil
		}
		if runErr != nil {
			return "", runErr
		}
		return "", fmt.Errorf("the run ended without a result")
	}
	switch done.Reason {
	case event.ReasonDone:
		if done.StopReason == "refusal" {
			return acpsdk.StopReasonRefusal, nil
		}
		return acpsdk.StopReasonEndTurn, nil
	case event.ReasonMaxTurns:
		return acpsdk.StopReasonMaxTurnRequests, nil
	case event.ReasonCancelled:
		return acpsdk.StopReasonCancelled, nil
	}
	switch {
	case done.StopReason == "max_tokens":
		return acpsdk.StopReasonMaxTokens, nil
	case cancelled:
		return acpsdk.StopReasonCancelled, nil
	case done.Error != "":
		return "", fmt.Errorf("%s", done.Error)
	case runErr != nil:
		return "", runErr
	}
	return "", fmt.Errorf("the run ended: %s", done.Reason)
}

// promptOf turns a prompt's content into the text nova sends and its
// images: text as it is; a link to a file as @path (relative to the
// workspace when inside it), to anything else as its URI; an embedded
// resource's text after the prompt, in a <context> element naming it;
// images (and embedded images) as images. Audio is not offered
// (promptCapabilities), nor binary resources of other types: both are
// refused.
func promptOf(blocks []acpsdk.ContentBlock, dir string) (string, []nova.Image, error) {
	var text, attached strings.Builder
	var images []nova.Image
	image := func(data, mime string) error {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return fmt.Errorf("an image of the prompt is not base64: %w", err)
		}
		images = append(images, nova.Image{MediaType: mime, Data: b})
		return nil
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.Image != nil:
			if err := image(b.Image.Data, b.Image.MimeType); err != nil {
				return "", nil, err
			}
		case b.ResourceLink != nil:
			text.WriteString(mention(b.ResourceLink.Uri, dir))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			fmt.Fprintf(&attached, "\n\n<context ref=%q>\n%s\n</context>", r.Uri, strings.TrimRight(r.Text, "\n"))
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			r := b.Resource.Resource.BlobResourceContents
			mime := ""
			if r.MimeType != nil {
				mime = *r.MimeType
			}
			if !strings.HasPrefix(mime, "image/") {
				return "", nil, fmt.Errorf("the resource %s is binary (%s); nova takes text and images", r.Uri, cmp.Or(mime, "no type given"))
			}
			if err := image(r.Blob, mime); err != nil {
				return "", nil, err
			}
		case b.Audio != nil:
			return "", nil, fmt.Errorf("nova takes no audio")
		}
	}
	return text.String() + attached.String(), images, nil
}

// mention is how a prompt names a linked resource: @path for a file (the
// form the TUI's completion writes), the URI for anything else.
func mention(uri, dir string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return uri
	}
	p := shown(dir, filepath.Clean(filepath.FromSlash(u.Path)))
	if strings.ContainsAny(p, " \t") {
		return fmt.Sprintf("@%q", p)
	}
	return "@" + p
}
