// Package mcptest holds small MCP servers for tests, built on the official
// Go SDK's server side: one with a tool for every kind of result and
// failure (text, structured content, an image, a resource link, an error,
// a crash in the middle of a call, a call never answered, a change of its
// tool list), a text and a binary resource and two prompts, and servers
// that misbehave from the start (garbage on
// standard output, a slow start, an exit). A test binary serves them over
// stdio when re-run with $NOVA_MCPTEST set: call MainIfServer first in
// TestMain, and point a server definition at Command.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The environment a re-run test binary reads.
const (
	// EnvMode names the server to serve: ModeTools, ModeGarbage,
	// ModeNoise, ModeSlow, ModeExit or ModeMany.
	EnvMode = "NOVA_MCPTEST"
	// EnvPIDFile, if set, is a file the server appends its pid to.
	EnvPIDFile = "NOVA_MCPTEST_PIDFILE"
	// EnvDelay is how long ModeSlow sleeps before it serves (a Go
	// duration; default 10s).
	EnvDelay = "NOVA_MCPTEST_DELAY"
	// EnvTools is how many tools ModeMany has (default 200).
	EnvTools = "NOVA_MCPTEST_TOOLS"
)

// The servers.
const (
	// ModeTools serves NewServer.
	ModeTools = "tools"
	// ModeGarbage writes lines that are not JSON-RPC on standard output
	// before it serves NewServer, and one more in every echo call.
	ModeGarbage = "garbage"
	// ModeNoise writes only lines that are not JSON-RPC and never answers.
	ModeNoise = "noise"
	// ModeSlow sleeps $NOVA_MCPTEST_DELAY before it serves NewServer.
	ModeSlow = "slow"
	// ModeExit writes a complaint on standard error and exits with status 2.
	ModeExit = "exit"
	// ModeMany serves $NOVA_MCPTEST_TOOLS tools with long descriptions.
	ModeMany = "many"
)

// Instructions are NewServer's instructions to the model.
const Instructions = "Use echo to repeat text back."

// Command is a server definition for the test binary itself serving mode
// (for mcp.ServerConfig's Command, Args and Env).
func Command(mode string) (command string, args []string, env map[string]string) {
	return os.Args[0], []string{"-test.run=^$"}, map[string]string{EnvMode: mode}
}

// MainIfServer serves the server $NOVA_MCPTEST names over stdio and exits,
// if it is set; otherwise it returns at once.
func MainIfServer() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		if fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(fh, "%d\n", os.Getpid())
			fh.Close()
		}
	}
	os.Exit(serve(mode))
}

func serve(mode string) int {
	ctx := context.Background()
	switch mode {
	case ModeTools:
	case ModeGarbage:
		fmt.Println("Starting the garbage server v1.0 ...")
		fmt.Println("{not json either")
		fmt.Println(`{"log": "valid JSON but no JSON-RPC"}`)
	case ModeNoise:
		for {
			fmt.Println("loading, please wait ...")
			time.Sleep(50 * time.Millisecond)
		}
	case ModeSlow:
		d, err := time.ParseDuration(os.Getenv(EnvDelay))
		if err != nil {
			d = 10 * time.Second
		}
		time.Sleep(d)
	case ModeExit:
		fmt.Fprintln(os.Stderr, "fatal: the database at localhost:5432 refused the connection")
		return 2
	case ModeMany:
		n, err := strconv.Atoi(os.Getenv(EnvTools))
		if err != nil {
			n = 200
		}
		return run(ctx, ManyServer(n))
	default:
		fmt.Fprintf(os.Stderr, "mcptest: unknown mode %q\n", mode)
		return 2
	}
	return run(ctx, NewServer(mode == ModeGarbage))
}

func run(ctx context.Context, s *sdk.Server) int {
	if err := s.Run(ctx, &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to repeat"`
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type empty struct{}

// PNG is the image the image tool returns: a 1×1 transparent PNG.
var PNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// NewServer is the server with a tool for every kind of result and
// failure:
//
//   - echo (read-only): its text back
//   - add: a + b as text and as structured content {"sum": …}
//   - image: PNG and a line of text
//   - link: a resource link to file:///tmp/report.txt
//   - fail: an error result (isError)
//   - crash: the server exits in the middle of the call
//   - hang: never answers
//   - grow: adds the tool "extra" and sends tools/list_changed
//
// and the resources GreetingURI (text/plain: Greeting) and PixelURI
// (image/png: PNG), and the prompts
//
//   - greet, no arguments: one user message, "Say hello to the user."
//   - review, arguments file (required) and focus: "Review FILE." or
//     "Review FILE, focusing on FOCUS.", then the greeting resource
//     embedded in a second message
//
// With garbage, every echo call also writes a line that is not JSON-RPC on
// standard output.
func NewServer(garbage bool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, &sdk.ServerOptions{Instructions: Instructions})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Repeats the text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			if garbage {
				fmt.Println("echo called!")
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, sumOut, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("The sum is %d.", in.A+in.B)}}}, sumOut{in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Returns a tiny image."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Here is the image."}, &sdk.ImageContent{Data: PNG, MIMEType: "image/png"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "link", Description: "Links a resource."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///tmp/report.txt", Name: "report", MIMEType: "text/plain"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the widget is broken"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server during the call."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "panic: the crash tool was called")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
			<-ctx.Done() // until the client cancels the call
			select {}    // and even then, no answer
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool extra."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "extra", Description: "A tool added later."},
				func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "extra!"}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
	addResourcesAndPrompts(s)
	return s
}

// The resources of NewServer.
const (
	GreetingURI = "test://greeting"
	Greeting    = "Hello from a text resource."
	PixelURI    = "test://pixel.png"
)

func addResourcesAndPrompts(s *sdk.Server) {
	s.AddResource(&sdk.Resource{URI: GreetingURI, Name: "greeting", Description: "A friendly text.", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: GreetingURI, MIMEType: "text/plain", Text: Greeting}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: PixelURI, Name: "pixel", Description: "A tiny image.", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: PixelURI, MIMEType: "image/png", Blob: PNG}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets the user."},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to the user."}}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Reviews a file.", Arguments: []*sdk.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true},
		{Name: "focus", Description: "what to look at"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		args := req.Params.Arguments
		if args["file"] == "" {
			return nil, fmt.Errorf("the argument file is required")
		}
		text := "Review " + args["file"] + "."
		if f := args["focus"]; f != "" {
			text = "Review " + args["file"] + ", focusing on " + f + "."
		}
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: text}},
			{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: GreetingURI, MIMEType: "text/plain", Text: Greeting}}},
		}}, nil
	})
}

// ManyServer has n tools, tool000 … , each with a description of about
// 400 characters and a schema of a few properties: 200 of them take far
// more than a tenth of a 200k-token context window.
func ManyServer(n int) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest-many", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for, in the words of the record's own fields."},"limit":{"type":"integer","description":"How many records at most."},"fields":{"type":"array","items":{"type":"string"},"description":"Which fields to return."}},"required":["query"]}`)
	for i := range n {
		name := fmt.Sprintf("tool%03d", i)
		desc := fmt.Sprintf("Tool number %d searches the records of collection %d. ", i, i)
		for len(desc) < 400 {
			desc += "It returns matching records with their identifiers, owners, timestamps and every field requested. "
		}
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " found nothing"}}}, nil
			})
	}
	return s
}

// HTTPHandler serves NewServer over streamable HTTP (sse false) or the old
// SSE transport; a non-empty token is required as "Authorization: Bearer
// token", and a request without it is answered 401.
func HTTPHandler(sse bool, token string) http.Handler {
	srv := NewServer(false)
	get := func(*http.Request) *sdk.Server { return srv }
	var h http.Handler
	if sse {
		h = sdk.NewSSEHandler(get, nil)
	} else {
		h = sdk.NewStreamableHTTPHandler(get, nil)
	}
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
