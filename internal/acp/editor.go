package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// editorFS is the editor's file system as tool.EditorFS: Read, Write and
// Edit of one session ask the client (fs/read_text_file,
// fs/write_text_file), which answers from its buffers, unsaved changes
// included. The tools have resolved and re-checked every path before.
type editorFS struct {
	conn *acpsdk.AgentSideConnection
	// id is the session's, set once nova.Open has returned, before the
	// session can run a tool.
	id acpsdk.SessionId
}

func (e *editorFS) ReadTextFile(ctx context.Context, path string) (string, error) {
	r, err := e.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: e.id, Path: path})
	if err != nil {
		return "", err
	}
	return r.Content, nil
}

func (e *editorFS) WriteTextFile(ctx context.Context, path, content string) error {
	_, err := e.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: e.id, Path: path, Content: content})
	return err
}
