package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

// taskManagerURL is where a TaskManager registers and heartbeats: its JobManager's RPC port.
func taskManagerURL(o *options) (string, error) {
	host := o.conf["jobmanager.rpc.address"]
	if host == "" {
		host = "localhost"
	}
	id := o.conf["taskmanager.resource-id"]
	if id == "" {
		var err error
		if id, err = os.Hostname(); err != nil {
			return "", err
		}
	}
	slots := confInt(o.conf, "taskmanager.numberOfTaskSlots", 1)
	base := "http://" + net.JoinHostPort(host, strconv.Itoa(confInt(o.conf, "jobmanager.rpc.port", 6123)))
	return fmt.Sprintf("%s/fakeflink/taskmanagers/%s?slots=%d", base, url.PathEscape(id), slots), nil
}

// runTaskManager registers with the JobManager and heartbeats until ctx ends.
func runTaskManager(ctx context.Context, o *options, out io.Writer) error {
	target, err := taskManagerURL(o)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Second}
	_, _ = fmt.Fprintf(out, "fakeflink taskmanager: heartbeating to %s\n", target)
	ticker := time.NewTicker(2 * time.Second)
	defer ticker.Stop()
	registered := false
	for {
		ok := heartbeat(ctx, client, target)
		if ok != registered {
			registered = ok
			_, _ = fmt.Fprintf(out, "fakeflink taskmanager: registered=%v\n", ok)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

func heartbeat(ctx context.Context, client *http.Client, target string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent
}
