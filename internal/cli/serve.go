package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/serve"
	"github.com/novacode/nova/internal/serve/web"
)

// ServeOptions are the flags of `nova serve`.
type ServeOptions struct {
	IO *iostreams.IOStreams

	Listen         string
	TLSCert        string
	TLSKey         string
	InsecureRemote bool
	TokenFile      string
	AllowOrigins   []string
	IdleTimeout    time.Duration
	// Session holds the flags its sessions open with, as nova's
	// (addSessionFlags); the rest of RootOptions is unused.
	Session RootOptions

	// Getenv reads NOVA_SERVE_TOKEN; nil means os.Getenv.
	Getenv func(string) string
}

// serveStatic is what nova serve serves at /: the web client, embedded in
// the binary.
var serveStatic http.Handler = web.Handler()

func newCmdServe(ios *iostreams.IOStreams, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve sessions over WebSocket, to the web client or another program",
		Long: `nova serve runs sessions for browsers and other programs over a WebSocket
(/ws; the protocol is internal/serve/PROTOCOL.md), with a web client at /.

It listens on 127.0.0.1:7777 unless told otherwise and prints the address to
open, with the token in it:

  nova serve: open http://127.0.0.1:7777/#token=…

Every connection must present the token. Whoever has it runs commands in this
workspace as you: a non-loopback --listen needs --tls-cert and --tls-key (or
--insecure-remote, for a network you trust), and browser pages may connect
only from the server's own origin or one given with --allow-origin.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkSessionFlags(cmd, &opts.Session); err != nil {
				return err
			}
			if (opts.TLSCert == "") != (opts.TLSKey == "") {
				return errors.New("--tls-cert and --tls-key go together")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:7777", "Address to listen on, host:port (port 0: any free port; the address is printed)")
	f.StringVar(&opts.TLSCert, "tls-cert", "", "Serve HTTPS/WSS with this certificate (PEM); with --tls-key")
	f.StringVar(&opts.TLSKey, "tls-key", "", "The certificate's private key (PEM)")
	f.BoolVar(&opts.InsecureRemote, "insecure-remote", false, "Allow a non-loopback --listen without TLS (the token and all traffic cross the network in clear)")
	f.StringVar(&opts.TokenFile, "token-file", "", "Read the token from this file (default: $NOVA_SERVE_TOKEN, else a random one made at start)")
	f.StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "A browser origin besides the server's own that may connect, scheme://host[:port]; repeatable")
	f.DurationVar(&opts.IdleTimeout, "idle-timeout", serve.DefaultIdleTimeout, "Close a session after this long with no client and no prompt running (it can be resumed); 0: never")
	addSessionFlags(f, &opts.Session)
	return cmd
}

func runServe(ctx context.Context, opts *ServeOptions) error {
	withTLS := opts.TLSCert != ""
	if err := serve.CheckListen(opts.Listen, withTLS, opts.InsecureRemote); err != nil {
		return err
	}
	token, err := serveToken(opts)
	if err != nil {
		return err
	}
	dir, err := workspace(opts.Session.Cwd)
	if err != nil {
		return err
	}
	base := opts.Session.sessionOptions(dir)
	var tlsConf *tls.Config
	if withTLS {
		cert, err := tls.LoadX509KeyPair(opts.TLSCert, opts.TLSKey)
		if err != nil {
			return fmt.Errorf("load --tls-cert and --tls-key: %w", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	idle := opts.IdleTimeout
	if idle == 0 {
		idle = -1 // never
	}
	srv, err := serve.New(serve.Config{
		Options: func() nova.Options {
			o := base
			o.Allow, o.Deny, o.MCPConfigFiles = slices.Clone(o.Allow), slices.Clone(o.Deny), slices.Clone(o.MCPConfigFiles)
			return o
		},
		Token: token, AllowOrigins: opts.AllowOrigins, Static: serveStatic,
		Version: Version, Log: opts.IO.ErrOut, IdleTimeout: idle,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
	}
	// One line, written at once: scripts wait for it to learn the port.
	if _, err := fmt.Fprintf(opts.IO.Out, "nova serve: open %s\n", serveURL(opts.Listen, ln.Addr(), withTLS, token)); err != nil {
		ln.Close()
		return fmt.Errorf("write the address: %w", err)
	}
	if f, ok := opts.IO.Out.(interface{ Sync() error }); ok {
		_ = f.Sync() // a terminal or pipe: already written; a file: on disk
	}
	return srv.Serve(ctx, ln)
}

// serveToken is the token from --token-file, else $NOVA_SERVE_TOKEN, else
// a new random one.
func serveToken(opts *ServeOptions) (string, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var tok, from string
	switch {
	case opts.TokenFile != "":
		b, err := os.ReadFile(opts.TokenFile)
		if err != nil {
			return "", fmt.Errorf("read --token-file: %w", err)
		}
		tok, from = strings.TrimSpace(string(b)), "the token of "+opts.TokenFile
	case getenv("NOVA_SERVE_TOKEN") != "":
		tok, from = strings.TrimSpace(getenv("NOVA_SERVE_TOKEN")), "NOVA_SERVE_TOKEN"
	default:
		return serve.GenerateToken()
	}
	if err := serve.ValidToken(tok); err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	return tok, nil
}

// serveURL is the address to open: the host of --listen (a name as given,
// for the certificate's sake; 127.0.0.1 for every interface) and the port
// listened on, with the token in the fragment, which browsers never send.
func serveURL(listen string, addr net.Addr, withTLS bool, token string) string {
	host, _, _ := net.SplitHostPort(listen)
	port := ""
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	} else if _, p, err := net.SplitHostPort(addr.String()); err == nil {
		port = p
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	scheme := "http"
	if withTLS {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(strings.Trim(host, "[]"), port) + "/#token=" + token
}
