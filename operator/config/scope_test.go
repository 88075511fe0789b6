package config

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseScope(t *testing.T) {
	for name, tc := range map[string]struct {
		flat    map[string]string
		want    Scope
		wantErr bool
	}{
		"defaults":           {},
		"Apache's default":   {flat: map[string]string{KeyWatchedNamespaces: AllNamespaces}},
		"a list, sorted":     {flat: map[string]string{KeyWatchedNamespaces: " team-b, team-a ,team-b"}, want: Scope{Namespaces: []string{"team-a", "team-b"}}},
		"a selector":         {flat: map[string]string{KeyLabelSelector: "tier in (gold, silver), !canary"}, want: Scope{Selector: "!canary,tier in (gold,silver)"}},
		"not a namespace":    {flat: map[string]string{KeyWatchedNamespaces: "team-a,../etc"}, wantErr: true},
		"upper case":         {flat: map[string]string{KeyWatchedNamespaces: "Team-A"}, wantErr: true},
		"not a selector":     {flat: map[string]string{KeyLabelSelector: "tier in gold"}, wantErr: true},
		"a hostile selector": {flat: map[string]string{KeyLabelSelector: "a=b;rm -rf /"}, wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseScope(tc.flat)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scope (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScopeAdmits(t *testing.T) {
	gold := map[string]string{"tier": "gold"}
	for name, tc := range map[string]struct {
		scope     Scope
		namespace string
		labels    map[string]string
		want      bool
	}{
		"everything":             {namespace: "x", want: true},
		"a watched namespace":    {scope: Scope{Namespaces: []string{"a", "b"}}, namespace: "b", want: true},
		"an unwatched namespace": {scope: Scope{Namespaces: []string{"a", "b"}}, namespace: "c"},
		"matching labels":        {scope: Scope{Selector: "tier=gold"}, namespace: "c", labels: gold, want: true},
		"other labels":           {scope: Scope{Selector: "tier=gold"}, namespace: "c", labels: map[string]string{"tier": "iron"}},
		"no labels":              {scope: Scope{Selector: "tier=gold"}, namespace: "c"},
		"both must hold":         {scope: Scope{Namespaces: []string{"a"}, Selector: "tier=gold"}, namespace: "c", labels: gold},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.scope.Admits(tc.namespace, tc.labels); got != tc.want {
				t.Errorf("Admits(%s, %v) = %v, want %v", tc.namespace, tc.labels, got, tc.want)
			}
		})
	}
}

// TestLiveScopeReloads: a reload changes the scope and tells Changes; a pinned part stays; a
// file with a bad scope is refused whole.
func TestLiveScopeReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.yaml")
	l, err := NewLive([]byte(KeyWatchedNamespaces + ": team-a\n"))
	if err != nil {
		t.Fatal(err)
	}
	changes := l.Changes()
	writeFile(t, path, KeyWatchedNamespaces+": team-a,team-b\n"+KeyLabelSelector+": tier=gold\n")
	if changed, _, err := l.Reload(path); !changed || err != nil {
		t.Fatalf("reload: %v, %v", changed, err)
	}
	select {
	case <-changes:
	default:
		t.Error("a reload did not tell Changes")
	}
	want := Scope{Namespaces: []string{"team-a", "team-b"}, Selector: "tier=gold"}
	if diff := cmp.Diff(want, l.Scope()); diff != "" {
		t.Errorf("scope after the reload (-want +got):\n%s", diff)
	}
	writeFile(t, path, KeyWatchedNamespaces+": team-a\n"+KeyLabelSelector+": tier in gold\n")
	if _, _, err := l.Reload(path); err == nil {
		t.Error("a file with a bad selector was taken")
	}
	if diff := cmp.Diff(want, l.Scope()); diff != "" {
		t.Errorf("a refused file changed the scope (-want +got):\n%s", diff)
	}
	l.PinScope(func(s Scope) Scope { s.Namespaces = []string{"team-a"}; return s })
	writeFile(t, path, KeyWatchedNamespaces+": team-c\n")
	if _, _, err := l.Reload(path); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Scope{Namespaces: []string{"team-a"}}, l.Scope()); diff != "" {
		t.Errorf("the pinned namespaces moved (-want +got):\n%s", diff)
	}
	if _, err := NewLive([]byte(KeyDynamicNamespaces + ": sometimes\n")); err == nil {
		t.Error("a bad " + KeyDynamicNamespaces + " was taken")
	}
}
