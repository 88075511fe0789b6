package config

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Keys of the live reload, the Apache operator's.
const (
	KeyDynamicConfig         = "kubernetes.operator.dynamic.config.enabled"
	KeyDynamicConfigInterval = "kubernetes.operator.dynamic.config.check.interval"
	// NamespacePrefix starts a key that holds for one namespace only:
	// NamespacePrefix + "<namespace>." + an option.
	NamespacePrefix = "kubernetes.operator.default-configuration.namespace."
	// DefaultDynamicConfigInterval is the Apache operator's check interval.
	DefaultDynamicConfigInterval = 5 * time.Minute
	// MinDynamicConfigInterval bounds how often the file is read.
	MinDynamicConfigInterval = time.Second
)

// Live holds the operator-wide options, replaced when their file changes (see Watch).
// Safe for concurrent use: readers never wait; Reload and Constrain take turns.
type Live struct {
	p         atomic.Pointer[liveState]
	mu        sync.Mutex            // held by Reload and Constrain
	constrain func(Options) Options // under mu
	pinScope  func(Scope) Scope     // under mu
	changes   []chan struct{}       // under mu
}

type liveState struct {
	opts  Options
	scope Scope
	flat  map[string]string
	data  []byte
	// flinkDefaults are the file's operator-wide Flink defaults; scoped are those it has for
	// namespaces or Flink versions too, computed once per namespace the file names (other
	// namespaces share "") and Flink version (see FlinkDefaults).
	flinkDefaults map[string]string
	scoped        *scopedDefaults
}

// NewLive holds the options read from data (a file's content; nil: the defaults).
func NewLive(data []byte) (*Live, error) {
	l := &Live{}
	st, err := parse(data)
	if err != nil {
		return nil, err
	}
	l.p.Store(st)
	return l, nil
}

// FixedOptions holds opts, never reloaded: what the harness and tests give the reconcilers.
func FixedOptions(opts Options) *Live {
	l := &Live{}
	l.p.Store(&liveState{opts: opts, flat: map[string]string{}, flinkDefaults: map[string]string{}})
	return l
}

// parse reads a file's content: every option, each namespace's overrides and the dynamic
// configuration's own keys must be valid, or none of it is taken.
func parse(data []byte) (*liveState, error) {
	flat, err := Flat(data)
	if err != nil {
		return nil, err
	}
	opts, err := Defaults().With(flat)
	if err != nil {
		return nil, err
	}
	scope, err := ParseScope(flat)
	if err != nil {
		return nil, err
	}
	if _, err := DynamicNamespaces(flat); err != nil {
		return nil, err
	}
	st := &liveState{opts: opts, scope: scope, flat: flat, data: bytes.Clone(data)}
	st.flinkDefaults, st.scoped = flinkDefaultsOf(flat)
	for _, ns := range namespaces(flat) {
		if _, err := st.forNamespace(ns); err != nil {
			return nil, err
		}
	}
	if _, _, err := DynamicConfig(flat); err != nil {
		return nil, err
	}
	return st, nil
}

// namespaces are the namespaces flat has overrides for.
func namespaces(flat map[string]string) []string {
	seen := map[string]bool{}
	for k := range flat {
		if rest, ok := strings.CutPrefix(k, NamespacePrefix); ok {
			if ns, _, ok := strings.Cut(rest, "."); ok {
				seen[ns] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Options are the operator-wide options now.
func (l *Live) Options() Options { return l.p.Load().opts }

// Scope is which resources the operator reconciles now.
func (l *Live) Scope() Scope { return l.p.Load().scope }

// PinScope applies f to the scope now and to every reload's (it replaces an earlier f): what
// the file may not change while the operator runs (its watched namespaces, unless
// KeyDynamicNamespaces is on).
func (l *Live) PinScope(f func(Scope) Scope) {
	l.change(func(st *liveState) {
		l.pinScope = f
		st.scope = f(st.scope)
	})
}

// change applies set to a copy of the state now, under l.mu, and stores it.
func (l *Live) change(set func(st *liveState)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := *l.p.Load()
	set(&st)
	l.store(&st)
}

// Changes returns a channel that receives (without blocking the reload, so one receive may
// stand for several) after each change of the options or the scope.
func (l *Live) Changes() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{}, 1)
	l.changes = append(l.changes, ch)
	return ch
}

// store replaces the state and tells the Changes channels; l.mu is held.
func (l *Live) store(st *liveState) {
	l.p.Store(st)
	for _, ch := range l.changes {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Constrain applies f to the options now and to every reload (it replaces an earlier f):
// what the operator cannot do whatever the file says (record snapshots without their CRD,
// say). A namespace's options are the constrained ones overridden.
func (l *Live) Constrain(f func(Options) Options) {
	l.change(func(st *liveState) {
		l.constrain = f
		st.opts = f(st.opts)
	})
}

// Flat are the operator-wide options now as the file gives them, key by key.
func (l *Live) Flat() map[string]string { return maps.Clone(l.p.Load().flat) }

// For are the options of a resource in namespace: the operator-wide ones overridden by the
// keys NamespacePrefix+namespace+"."+option gives, as the Apache operator's per-namespace
// defaults do. A file with a malformed namespace value is refused whole (NewLive, Reload), so
// For errs only on a Live built otherwise; the operator-wide options come with the error.
func (l *Live) For(namespace string) (Options, error) {
	return l.p.Load().forNamespace(namespace)
}

func (st *liveState) forNamespace(namespace string) (Options, error) {
	prefix := NamespacePrefix + namespace + "."
	over := map[string]string{}
	for k, v := range st.flat {
		if rest, ok := strings.CutPrefix(k, prefix); ok && strings.HasPrefix(rest, OperatorPrefix) {
			over[rest] = v
		}
	}
	if len(over) == 0 {
		return st.opts, nil
	}
	return st.opts.With(over)
}

// Reload reads path again and, when its content changed and is valid, takes it. It reports
// whether the options changed, and Check's warnings for the new content; a file that does
// not read or parse is an error, and the options in force stay.
func (l *Live) Reload(path string) (bool, []string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return false, nil, fmt.Errorf("operator options: %w", err)
	}
	if bytes.Equal(data, l.p.Load().data) {
		return false, nil, nil
	}
	st, err := parse(data)
	if err != nil {
		return false, nil, fmt.Errorf("operator options %s: %w", path, err)
	}
	if l.constrain != nil {
		st.opts = l.constrain(st.opts)
	}
	if l.pinScope != nil {
		st.scope = l.pinScope(st.scope)
	}
	l.store(st)
	return true, Check(st.flat), nil
}

// Watch reloads path every interval until ctx ends (the Apache operator's dynamic
// configuration: a ConfigMap mounted as a file, which the kubelet rewrites when the ConfigMap
// changes). What it finds is logged: the options reloaded, each warning, an error.
func (l *Live) Watch(ctx context.Context, path string, interval time.Duration, clk clock.WithTicker, log logr.Logger) {
	t := clk.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		changed, warnings, err := l.Reload(path)
		switch {
		case err != nil:
			log.Error(err, "operator options not reloaded; the ones in force stay")
		case changed:
			log.Info("operator options reloaded", "file", path)
			for _, w := range warnings {
				log.Info("Warning: "+w, "file", path)
			}
		}
	}
}

// DynamicConfig reads KeyDynamicConfig and KeyDynamicConfigInterval from the operator's flat
// options: whether to watch the file, and how often (at least MinDynamicConfigInterval).
func DynamicConfig(flat map[string]string) (bool, time.Duration, error) {
	on, interval := true, DefaultDynamicConfigInterval
	if v, ok := flat[KeyDynamicConfig]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
		case "false":
			on = false
		default:
			return false, 0, fmt.Errorf("%s: %q is not true or false", KeyDynamicConfig, v)
		}
	}
	if v, ok := flat[KeyDynamicConfigInterval]; ok {
		d, err := ParseDuration(v)
		if err != nil {
			return false, 0, fmt.Errorf("%s: %w", KeyDynamicConfigInterval, err)
		}
		if d < MinDynamicConfigInterval {
			return false, 0, fmt.Errorf("%s: %s is shorter than %s", KeyDynamicConfigInterval, d, MinDynamicConfigInterval)
		}
		interval = d
	}
	return on, interval, nil
}
