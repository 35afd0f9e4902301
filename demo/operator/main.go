// Command demo-operator is the demo operator's manager: the program in the image its bundles' Deployment runs
// (`registry.example.com/olm-demo/demo-operator:v<version>`, pulled from the local registry through a mirror). It answers Greetings (greetings.demo.olm.dev/v1alpha1) in every
// namespace: for each one whose status.observedGeneration is behind its generation, it writes the greeting into
// status.message ("Hello, <recipient>!", or "Good day, <recipient>." when spec.style is Formal). With --leader-elect
// only the holder of the Lease `demo-operator` in its own namespace writes. /healthz and /readyz answer once it runs,
// leader or not (as a controller-runtime manager's do): readiness tied to the Lease would stall every rolling update,
// the new Pod waiting for the Lease the old one holds until it goes.
//
// Standard library only: the API server is reached as a Pod reaches it (the kubernetes Service's environment
// variables, the ServiceAccount's token and CA), Greetings are listed and then watched, status is merge-patched.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	saDir     = "/var/run/secrets/kubernetes.io/serviceaccount"
	greetings = "/apis/demo.olm.dev/v1alpha1/greetings"
	leaseName = "demo-operator"
)

type greeting struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		Generation      int64  `json:"generation"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		Recipient string `json:"recipient"`
		Style     string `json:"style"`
	} `json:"spec"`
	Status struct {
		Message            string `json:"message"`
		ObservedGeneration int64  `json:"observedGeneration"`
	} `json:"status"`
}

type client struct {
	base  string
	token string
	http  *http.Client
}

func inCluster() (*client, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("not in a Pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset")
	}
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &client{base: "https://" + net.JoinHostPort(host, port), token: strings.TrimSpace(string(token)), http: &http.Client{Transport: transport}}, nil
}

func (c *client) do(ctx context.Context, method, path, contentType string, body any) (*http.Response, error) {
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, reader)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return c.http.Do(req)
}

func (c *client) json(ctx context.Context, method, path, contentType string, body, out any) (int, error) {
	res, err := c.do(ctx, method, path, contentType, body)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, strings.TrimSpace(string(data)))
	}
	if out != nil {
		return res.StatusCode, json.Unmarshal(data, out)
	}
	return res.StatusCode, nil
}

func message(g *greeting) string {
	if g.Spec.Style == "Formal" {
		return fmt.Sprintf("Good day, %s.", g.Spec.Recipient)
	}
	return fmt.Sprintf("Hello, %s!", g.Spec.Recipient)
}

// reconcile writes the greeting of g when its status is behind its spec.
func (c *client) reconcile(ctx context.Context, g *greeting) {
	if g.Status.ObservedGeneration == g.Metadata.Generation && g.Status.Message == message(g) {
		return
	}
	patch := map[string]any{"status": map[string]any{"message": message(g), "observedGeneration": g.Metadata.Generation}}
	path := fmt.Sprintf("/apis/demo.olm.dev/v1alpha1/namespaces/%s/greetings/%s/status", g.Metadata.Namespace, g.Metadata.Name)
	if _, err := c.json(ctx, http.MethodPatch, path, "application/merge-patch+json", patch, nil); err != nil {
		log.Printf("greeting %s/%s: %v", g.Metadata.Namespace, g.Metadata.Name, err)
		return
	}
	log.Printf("greeting %s/%s: %q", g.Metadata.Namespace, g.Metadata.Name, message(g))
}

// run lists the Greetings, answers each, then watches from the list's resourceVersion; it returns when the watch ends.
func (c *client) run(ctx context.Context, listed *atomic.Bool) error {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []greeting `json:"items"`
	}
	if _, err := c.json(ctx, http.MethodGet, greetings, "", nil, &list); err != nil {
		return err
	}
	for i := range list.Items {
		c.reconcile(ctx, &list.Items[i])
	}
	if !listed.Swap(true) {
		log.Printf("greetings: %d listed; watching", len(list.Items))
	}
	res, err := c.do(ctx, http.MethodGet, greetings+"?watch=true&allowWatchBookmarks=true&resourceVersion="+list.Metadata.ResourceVersion, "", nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("watch greetings: %d", res.StatusCode)
	}
	decoder := json.NewDecoder(bufio.NewReader(res.Body))
	for {
		var event struct {
			Type   string   `json:"type"`
			Object greeting `json:"object"`
		}
		if err := decoder.Decode(&event); err != nil {
			return err
		}
		if event.Type == "ADDED" || event.Type == "MODIFIED" {
			c.reconcile(ctx, &event.Object)
		}
	}
}

// lead blocks until this Pod holds the Lease, then renews it every 5 s; it cancels the context when the Lease is lost.
// The function it returns gives the Lease up (when still held), so that the next Pod of a rolling update leads at once.
func (c *client) lead(ctx context.Context, cancel context.CancelFunc, identity string) (release func()) {
	ns, err := os.ReadFile(saDir + "/namespace")
	if err != nil {
		log.Fatalf("leader election: %v", err)
	}
	path := fmt.Sprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", strings.TrimSpace(string(ns)), leaseName)
	const duration = 15
	try := func() bool {
		now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
		var lease map[string]any
		status, err := c.json(ctx, http.MethodGet, path, "", nil, &lease)
		if status == http.StatusNotFound {
			body := map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": leaseName},
				"spec": map[string]any{"holderIdentity": identity, "leaseDurationSeconds": duration, "acquireTime": now, "renewTime": now}}
			_, err := c.json(ctx, http.MethodPost, path[:strings.LastIndex(path, "/")], "application/json", body, nil)
			return err == nil
		}
		if err != nil {
			return false
		}
		spec, _ := lease["spec"].(map[string]any)
		holder, _ := spec["holderIdentity"].(string)
		renewed, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(spec["renewTime"]))
		if holder != "" && holder != identity && time.Since(renewed) < duration*time.Second {
			return false
		}
		spec["holderIdentity"], spec["renewTime"], spec["leaseDurationSeconds"] = identity, now, duration
		_, err = c.json(ctx, http.MethodPut, path, "application/json", lease, nil)
		return err == nil
	}
	release = func() {
		stop, done := context.WithTimeout(context.Background(), 2*time.Second)
		defer done()
		var lease map[string]any
		if _, err := c.json(stop, http.MethodGet, path, "", nil, &lease); err != nil {
			return
		}
		if spec, ok := lease["spec"].(map[string]any); ok && spec["holderIdentity"] == identity {
			spec["holderIdentity"] = ""
			_, _ = c.json(stop, http.MethodPut, path, "application/json", lease, nil)
		}
	}
	for !try() {
		select {
		case <-ctx.Done():
			return release
		case <-time.After(2 * time.Second):
		}
	}
	log.Printf("leader election: %s holds the Lease %s", identity, leaseName)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Second):
				if !try() {
					log.Printf("leader election: lost the Lease %s", leaseName)
					cancel()
					return
				}
			}
		}
	}()
	return release
}

func main() {
	leaderElect := flag.Bool("leader-elect", false, "write only while holding the Lease demo-operator in the Pod's namespace")
	probeAddr := flag.String("health-probe-bind-address", ":8081", "where /healthz and /readyz are served")
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	var listed atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	go func() { log.Fatal(http.ListenAndServe(*probeAddr, mux)) }()
	c, err := inCluster()
	if err != nil {
		log.Fatal(err)
	}
	if *leaderElect {
		host, _ := os.Hostname()
		defer c.lead(ctx, cancel, host)()
	}
	for ctx.Err() == nil {
		if err := c.run(ctx, &listed); err != nil && ctx.Err() == nil {
			log.Printf("greetings: %v; listing again", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}
