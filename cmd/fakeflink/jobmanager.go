package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/fakeflink/rest"
)

// jobManager is a fake JobManager process: the REST server plus the TaskManager registry.
type jobManager struct {
	clock            clock.PassiveClock
	rest             *rest.Server
	heartbeatTimeout time.Duration
	lastSeen         map[string]time.Time // guarded by rest.Do
}

func newJobManager(o *options, clk clock.PassiveClock, d durable) (*jobManager, error) {
	id := o.conf["kubernetes.cluster-id"]
	if id == "" {
		id = "fakeflink"
	}
	spec := fakeflink.ClusterSpec{ID: id, Config: o.conf, FlinkVersion: o.conf["fakeflink.flink-version"]}
	if o.mode == "standalone-job" || o.mode == modeApplication {
		if err := applicationSpec(o, &spec); err != nil {
			return nil, err
		}
	}
	cluster, err := fakeflink.NewCluster(spec, fakeflink.Options{
		Clock: clk, Rand: rand.New(rand.NewSource(o.seed)), Store: d.store, HA: d.ha,
	})
	if err != nil {
		return nil, err
	}
	if err := cluster.StartJobManager(); err != nil {
		return nil, err
	}
	timeout := 50 * time.Second
	if v := o.conf["heartbeat.timeout"]; v != "" {
		if timeout, err = fakeflink.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("heartbeat.timeout: %w", err)
		}
	}
	return &jobManager{clock: clk, rest: rest.NewServer(cluster), heartbeatTimeout: timeout, lastSeen: map[string]time.Time{}}, nil
}

// applicationSpec makes spec an application cluster running the job of the command line.
func applicationSpec(o *options, spec *fakeflink.ClusterSpec) error {
	conf := maps.Clone(o.conf)
	if o.job.fromSavepoint != "" {
		conf["execution.savepoint.path"] = o.job.fromSavepoint
	}
	if o.job.allowNonRestored {
		conf["execution.savepoint.ignore-unclaimed-state"] = "true"
	}
	if o.job.jobID != "" {
		conf["$internal.pipeline.job-id"] = o.job.jobID
	}
	jar := strings.Split(conf["pipeline.jars"], ";")[0]
	prog, err := fakeflink.ProgramFromConfig(conf, jar, o.job.className, o.job.args)
	if err != nil {
		return err
	}
	if prog.Name == "" {
		prog.Name = o.job.className
	}
	spec.Config, spec.Application = conf, &prog
	return nil
}

// taskManagerHandler serves the TaskManager registration endpoint, on the RPC port as Flink's
// TaskManagers reach their JobManager: apart from the REST endpoint and its SSL.
func (jm *jobManager) taskManagerHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /fakeflink/taskmanagers/{id}", func(w http.ResponseWriter, r *http.Request) {
		slots, err := strconv.Atoi(r.URL.Query().Get("slots"))
		if err != nil || slots < 1 {
			http.Error(w, "slots must be a positive number", http.StatusBadRequest)
			return
		}
		jm.rest.Do(func(c *fakeflink.Cluster) {
			c.RegisterTaskManager(r.PathValue("id"), slots)
			jm.lastSeen[r.PathValue("id")] = jm.clock.Now()
		})
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// handler serves Flink's REST API plus the fake's job state endpoint.
func (jm *jobManager) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fakeflink/jobs/{id}", jm.jobState)
	mux.Handle("/", jm.rest)
	return mux
}

// jobState serves GET /fakeflink/jobs/{id}: a job's fakeflink.JobReport.
func (jm *jobManager) jobState(w http.ResponseWriter, r *http.Request) {
	var st fakeflink.JobReport
	var err error
	jm.rest.Do(func(c *fakeflink.Cluster) {
		var j *fakeflink.Job
		if j, err = c.Job(r.PathValue("id")); err == nil {
			st = fakeflink.JobReport{ID: j.ID, Status: j.Status, Offset: j.Offset(c.Now()), Restored: j.Restored()}
			for _, s := range c.Starts() {
				if s.JobID == j.ID {
					st.StartOffset = s.Offset
				}
			}
		}
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

// tick advances the cluster and drops TaskManagers whose heartbeats stopped.
func (jm *jobManager) tick() {
	jm.rest.Do(func(c *fakeflink.Cluster) {
		now := jm.clock.Now()
		for _, id := range slices.Sorted(maps.Keys(jm.lastSeen)) {
			if now.Sub(jm.lastSeen[id]) > jm.heartbeatTimeout {
				c.RemoveTaskManager(id)
				delete(jm.lastSeen, id)
			}
		}
		c.Tick()
	})
}

func runJobManager(ctx context.Context, o *options, out io.Writer) error {
	d, err := openDurable(o.conf, out, inCluster)
	if err != nil {
		return err
	}
	jm, err := newJobManager(o, clock.RealClock{}, d)
	if err != nil {
		return err
	}
	lis, scheme, err := listenREST(o.conf)
	if err != nil {
		return err
	}
	rpc, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(confInt(o.conf, "jobmanager.rpc.port", 6123))))
	if err != nil {
		_ = lis.Close()
		return err
	}
	srv := &http.Server{Handler: jm.handler(), ReadHeaderTimeout: 10 * time.Second}
	tms := &http.Server{Handler: jm.taskManagerHandler(), ReadHeaderTimeout: 10 * time.Second}
	_, _ = fmt.Fprintf(out, "fakeflink %s: REST API on %s://%s, TaskManagers on %s\n", o.mode, scheme, lis.Addr(), rpc.Addr())
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(lis) }()
	go func() { errc <- tms.Serve(rpc) }()
	if o.native {
		go func() {
			if err := runResourceManager(ctx, o, jm, out); err != nil {
				errc <- err
			}
		}()
	}
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = tms.Shutdown(shutdown)
			return srv.Shutdown(shutdown)
		case err := <-errc:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case <-ticker.C:
			jm.tick()
		}
	}
}
