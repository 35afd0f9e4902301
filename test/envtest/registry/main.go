// Command registry runs the CNCF distribution registry (github.com/distribution/distribution/v3,
// unmodified) for the project's tests, with the filesystem and in-memory storage drivers and
// the htpasswd and token auth providers compiled in.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"

	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
