package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
)

func newCmdMCP(ios *iostreams.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Configure MCP servers and see how they are doing",
		Long: `MCP servers give the model tools of their own, named mcp__<server>__<tool>.
They are defined in Claude Code's format in your settings (scope user), the
project's .mcp.json (scope project) or the workspace's .novacode/settings.local.json
(scope local); see the README, "MCP servers".`,
	}
	cmd.AddCommand(newCmdMCPList(ios, nil), newCmdMCPGet(ios, nil), newCmdMCPAdd(ios, nil), newCmdMCPRemove(ios, nil))
	return cmd
}

// MCPListOptions are the inputs of `nova mcp list`.
type MCPListOptions struct {
	IO   *iostreams.IOStreams
	Cwd  string
	JSON bool
}

func newCmdMCPList(ios *iostreams.IOStreams, runF func(context.Context, *MCPListOptions) error) *cobra.Command {
	opts := &MCPListOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers configured here, connecting to each",
		Long: `List the MCP servers a session in this workspace would start, with where each is
defined (scope), its transport, its state and how many tools it has. Each server
that may start is started and waited for (at most $MCP_TIMEOUT milliseconds, 30 s
by default, all at once), then stopped. A state is connected, failed (the reason
follows the table), disabled (you declined it, or disabledMcpjsonServers names
it), needs approval (a server of .mcp.json you have not approved) or needs trust
(a server of the workspace's settings, which apply once you trust it: nova trust).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "One JSON object per server")
	return cmd
}

// mcpJSON is a server as --json prints it.
type mcpJSON struct {
	Name      string                `json:"name"`
	Scope     string                `json:"scope"`
	Source    string                `json:"source,omitempty"`
	Transport string                `json:"transport,omitempty"`
	Describe  string                `json:"describe,omitempty"`
	State     string                `json:"state"`
	Error     string                `json:"error,omitempty"`
	Warning   string                `json:"warning,omitempty"`
	Tools     []string              `json:"tools"`
	Config    *nova.MCPServerConfig `json:"config,omitempty"`
}

func toJSON(st nova.MCPServerStatus) mcpJSON {
	return mcpJSON{Name: st.Name, Scope: st.Scope, Source: st.Source, Transport: st.Transport, Describe: st.Describe,
		State: st.State, Error: st.Error, Warning: st.Warning, Tools: cmpNil(st.ToolNames)}
}

func cmpNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func runMCPList(ctx context.Context, opts *MCPListOptions) error {
	list, err := nova.MCPList(ctx, opts.Cwd, "")
	if len(list) == 0 && err != nil {
		return err
	}
	out := opts.IO.Out
	if opts.JSON {
		enc := json.NewEncoder(out)
		for _, st := range list {
			if werr := enc.Encode(toJSON(st)); werr != nil {
				return werr
			}
		}
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(out, "No MCP servers are configured here. Add one with nova mcp add NAME -- COMMAND [ARGS...] (see nova mcp add --help).")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tTRANSPORT\tSTATE\tTOOLS\tCOMMAND OR URL")
	for _, st := range list {
		tools := "-"
		if st.State == "connected" {
			tools = strconv.Itoa(st.Tools)
		}
		// The URL alone: the transport has a column of its own.
		what := strings.TrimPrefix(st.Describe, st.Transport+" ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", flat(st.Name), st.Scope, cmp.Or(st.Transport, "-"), st.State, tools, flat(what))
	}
	if werr := tw.Flush(); werr != nil {
		return werr
	}
	first := true
	for _, st := range list {
		for _, line := range []string{st.Error, st.Warning} {
			if line == "" {
				continue
			}
			if first {
				fmt.Fprintln(out)
				first = false
			}
			fmt.Fprintf(out, "%s: %s\n", flat(st.Name), flat(line))
		}
	}
	return err
}

// flat keeps a name or message from breaking the table: control
// characters (a line break in a server's name or error) become spaces.
func flat(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// MCPGetOptions are the inputs of `nova mcp get`.
type MCPGetOptions struct {
	IO   *iostreams.IOStreams
	Cwd  string
	Name string
	JSON bool
}

func newCmdMCPGet(ios *iostreams.IOStreams, runF func(context.Context, *MCPGetOptions) error) *cobra.Command {
	opts := &MCPGetOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one MCP server: its definition, where it is defined, and its state",
		Long: `Show the MCP server NAME as a session in this workspace would see it: its
definition as written (${VAR} references unexpanded), the file and scope that
define it, and its state and tools after connecting to it (see nova mcp list).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPGet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "One JSON object")
	return cmd
}

func runMCPGet(ctx context.Context, opts *MCPGetOptions) error {
	d, err := nova.MCPGet(ctx, opts.Cwd, "", opts.Name)
	if d.Name == "" {
		return err
	}
	out := opts.IO.Out
	if opts.JSON {
		j := toJSON(d.MCPServerStatus)
		j.Config = &d.Config
		if werr := json.NewEncoder(out).Encode(j); werr != nil {
			return werr
		}
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "  %s:\t%s\n", k, flat(v)) }
	fmt.Fprintln(tw, flat(d.Name))
	row("Scope", fmt.Sprintf("%s (%s)", d.Scope, d.Source))
	c := d.Config
	row("Transport", d.Transport)
	if d.Transport == "stdio" {
		row("Command", c.Command)
		if len(c.Args) > 0 {
			var q []string
			for _, a := range c.Args {
				q = append(q, shellQuote(a))
			}
			row("Args", strings.Join(q, " "))
		}
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			row("Env", k+"="+c.Env[k])
		}
	} else {
		row("URL", c.URL)
		for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
			row("Header", k+": "+c.Headers[k])
		}
	}
	state := d.State
	if d.State == "connected" {
		state += fmt.Sprintf(" (%d tools)", d.Tools)
	}
	row("State", state)
	if d.Error != "" {
		row("Error", d.Error)
	}
	if d.Warning != "" {
		row("Warning", d.Warning)
	}
	if len(d.ToolNames) > 0 {
		row("Tools", strings.Join(d.ToolNames, ", "))
	}
	if werr := tw.Flush(); werr != nil {
		return werr
	}
	if d.Scope == "user" || d.Scope == "project" || d.Scope == "local" {
		fmt.Fprintf(out, "\nTo remove it: nova mcp remove %s --scope %s\n", shellQuote(d.Name), d.Scope)
	}
	return err
}

// MCPAddOptions are the inputs of `nova mcp add`.
type MCPAddOptions struct {
	IO  *iostreams.IOStreams
	Cwd string
	// Name is the server's; Scope is user, project or local.
	Name, Scope string
	// Server is the definition: Type "" (stdio) with Command, Args and Env,
	// or "http" / "sse" with URL and Headers.
	Server nova.MCPServerConfig
}

func newCmdMCPAdd(ios *iostreams.IOStreams, runF func(context.Context, *MCPAddOptions) error) *cobra.Command {
	opts := &MCPAddOptions{IO: ios}
	var transport string
	var env, headers []string
	cmd := &cobra.Command{
		Use:   "add [flags] NAME -- COMMAND [ARGS...]\n  nova mcp add --transport http|sse [flags] NAME URL",
		Short: "Add an MCP server",
		Long: `Add an MCP server to your settings (--scope user: every workspace), the
project's .mcp.json (--scope project: shared through the repository) or this
workspace's .novacode/settings.local.json (--scope local, the default: yours, in
this workspace). The rest of the file stays as it is.

A local server runs COMMAND with ARGS (after --, so that its flags are not
nova's), with -e's variables added to its environment. A remote one speaks
streamable HTTP (--transport http) or the older SSE transport (--transport sse)
at URL, with -H's headers on every request. ${VAR} and ${VAR:-default} in the
command, arguments, -e values, URL and -H values are read from the environment
when a session starts the server (quote them so that your shell leaves them).

A server you add to .mcp.json is approved for you (others who clone the
repository are asked); one you add to the local file starts once the workspace
is trusted, and a workspace you trusted stays trusted.

  nova mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  nova mcp add --scope user -e DATABASE_URL='${DATABASE_URL}' db -- pg-mcp
  nova mcp add --transport http -H 'Authorization: Bearer ${ISSUES_TOKEN}' issues https://mcp.example.com/mcp`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch opts.Scope {
			case "user", "project", "local":
			default:
				return fmt.Errorf("--scope must be user, project or local, not %q", opts.Scope)
			}
			dash := cmd.ArgsLenAtDash()
			if dash > 1 {
				return fmt.Errorf("one name goes before --, not %d: %s", dash, strings.Join(args[:dash], " "))
			}
			opts.Name = args[0]
			rest := args[1:]
			switch transport {
			case "stdio":
				if len(rest) == 0 {
					return errors.New("say what to run: nova mcp add NAME -- COMMAND [ARGS...] (or --transport http NAME URL for a remote server)")
				}
				if len(headers) > 0 {
					return errors.New("-H sets headers of an HTTP server (--transport http or sse); a stdio server takes its environment from -e")
				}
				opts.Server.Command, opts.Server.Args = rest[0], rest[1:]
			case "http", "sse":
				if len(rest) != 1 {
					return fmt.Errorf("an %s server takes one URL after its name: nova mcp add --transport %s NAME URL", transport, transport)
				}
				if len(env) > 0 {
					return errors.New("-e sets the environment of a stdio server; an HTTP server takes headers (-H)")
				}
				opts.Server.Type, opts.Server.URL = transport, rest[0]
			default:
				return fmt.Errorf("--transport must be stdio, http or sse, not %q", transport)
			}
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("-e takes KEY=VALUE, not %q", kv)
				}
				if opts.Server.Env == nil {
					opts.Server.Env = map[string]string{}
				}
				opts.Server.Env[k] = v
			}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				k = strings.TrimSpace(k)
				if !ok || k == "" || strings.ContainsAny(k, " \t") {
					return fmt.Errorf("-H takes 'Name: value', not %q", h)
				}
				if opts.Server.Headers == nil {
					opts.Server.Headers = map[string]string{}
				}
				opts.Server.Headers[k] = strings.TrimSpace(v)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPAdd(opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Scope, "scope", "s", "local", "Where to add it: user (your settings), project (.mcp.json) or local (.novacode/settings.local.json)")
	f.StringVarP(&transport, "transport", "t", "stdio", "stdio (a command), http (streamable HTTP) or sse")
	f.StringArrayVarP(&env, "env", "e", nil, "An environment variable of a stdio server, KEY=VALUE (repeatable)")
	f.StringArrayVarP(&headers, "header", "H", nil, "A header of an HTTP server, 'Name: value' (repeatable)")
	f.StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (the server's command and its arguments go after --: nova mcp add NAME -- COMMAND [ARGS...])", err)
	})
	return cmd
}

func runMCPAdd(opts *MCPAddOptions) error {
	e, err := nova.MCPAdd(opts.Cwd, "", opts.Scope, opts.Name, opts.Server)
	if err != nil {
		return err
	}
	c := opts.Server
	fmt.Fprintf(opts.IO.Out, "Added %s MCP server %s (%s) to scope %s: %s\n", c.Transport(), e.Name, flat(c.Describe()), e.Scope, e.File)
	return notice(opts.IO.Out, e.Notice)
}

func notice(w io.Writer, n string) error {
	if n == "" {
		return nil
	}
	_, err := fmt.Fprintln(w, n)
	return err
}

// MCPRemoveOptions are the inputs of `nova mcp remove`.
type MCPRemoveOptions struct {
	IO          *iostreams.IOStreams
	Cwd         string
	Name, Scope string
}

func newCmdMCPRemove(ios *iostreams.IOStreams, runF func(context.Context, *MCPRemoveOptions) error) *cobra.Command {
	opts := &MCPRemoveOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "remove NAME [--scope user|project|local]",
		Short: "Remove an MCP server",
		Long: `Remove the MCP server NAME from the file of its scope, keeping the rest of the
file as it is. Without --scope it is removed from whichever of your settings,
.mcp.json and .novacode/settings.local.json defines it; if several do, say which.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			switch opts.Scope {
			case "", "user", "project", "local":
			default:
				return fmt.Errorf("--scope must be user, project or local, not %q", opts.Scope)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPRemove(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Scope, "scope", "s", "", "Remove it from this scope: user, project or local (default: the one that defines it)")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	return cmd
}

func runMCPRemove(opts *MCPRemoveOptions) error {
	e, err := nova.MCPRemove(opts.Cwd, "", opts.Scope, opts.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Removed MCP server %s from scope %s: %s\n", e.Name, e.Scope, e.File)
	return notice(opts.IO.Out, e.Notice)
}
