// Command opm runs operator-registry's `opm serve` (github.com/operator-framework/operator-registry,
// unmodified) for the project's tests: it serves a file-based catalog directory over the
// registry gRPC API (api.Registry, grpc.health.v1, reflection), as a CatalogSource with
// spec.address talks to. Only the `serve` and `version` subcommands are compiled in; the rest of
// opm (render, index, alpha, ...) pulls in container runtimes and image libraries the tests do
// not need, so leaving it out keeps this build small.
//
//	opm serve <fbc-dir> -p <port> --pprof-addr= --termination-log=/dev/null
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/operator-framework/operator-registry/cmd/opm/serve"
	"github.com/operator-framework/operator-registry/cmd/opm/version"
)

func main() {
	root := &cobra.Command{
		Use:   "opm",
		Short: "operator package manager (serve and version only)",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) {},
	}
	root.AddCommand(serve.NewCmd())
	version.AddCommand(root)

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if err := root.ExecuteContext(ctx); err != nil {
		os.Exit(1)
	}
}
