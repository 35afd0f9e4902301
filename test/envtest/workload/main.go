// Command workload is the small program the local cluster's real nodes run in tests: an HTTP server (default :8080)
// whose probes are real, and which looks names up and dials addresses from inside its Pod, so a test can see what a
// Pod sees of the cluster's DNS and Services. Built static from this module; test/support/cluster-images.ts puts it
// in an image.
//
//	GET /healthz            200 "ok"
//	GET /readyz             200 "ok", or 503 once /fail-readiness was called
//	GET /lookup?name=N      200 with N's addresses one per line (the Pod's resolv.conf), 502 and the error otherwise
//	GET /get?url=U          the status and body of an HTTP GET of U from inside the Pod (5 s timeout), 502 on error
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	listen := flag.String("listen", ":8080", "address to serve on")
	flag.Parse()
	var unready atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if unready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/fail-readiness", func(w http.ResponseWriter, _ *http.Request) {
		unready.Store(true)
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/lookup", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupHost(ctx, r.URL.Query().Get("name"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, strings.Join(addrs, "\n"))
	})
	client := &http.Client{Timeout: 5 * time.Second}
	mux.HandleFunc("/get", func(w http.ResponseWriter, r *http.Request) {
		res, err := client.Get(r.URL.Query().Get("url"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		fmt.Fprintf(w, "%d\n%s", res.StatusCode, body)
	})
	fmt.Fprintf(os.Stderr, "workload: serving on %s\n", *listen)
	if err := http.ListenAndServe(*listen, mux); err != nil {
		fmt.Fprintf(os.Stderr, "workload: %v\n", err)
		os.Exit(1)
	}
}
