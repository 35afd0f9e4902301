// Upstream's package server, as its cmd/package-server/main.go runs it (the same options, flags, Run), with one
// change: upstream's own test switch DisableAuthForTesting set, so no delegated authentication or authorization.
// Upstream's Config points only authentication at --kubeconfig; authorization always needs an in-cluster
// config (a service account token file), which a process on this machine has not. Everything the PackageManifests
// are made of (provider.NewRegistryProvider, newPackageManifest, CreateCSVDescription, the storage) is upstream's,
// unchanged. Used by hack/upstream-packagemanifests.ts only.
package main

import (
	"flag"
	"os"

	log "github.com/sirupsen/logrus"
	"k8s.io/component-base/logs"

	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/signals"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/package-server/server"
)

func main() {
	logs.InitLogs()
	defer logs.FlushLogs()

	ctx := signals.Context()
	options := server.NewPackageServerOptions(os.Stdout, os.Stderr)
	options.DisableAuthForTesting = true
	cmd := server.NewCommandStartPackageServer(ctx, options)
	cmd.Flags().AddGoFlagSet(flag.CommandLine)
	if err := cmd.Execute(); err != nil {
		log.Fatal(err)
	}
}
