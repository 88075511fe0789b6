// Command crdtrim post-processes the CRDs controller-gen writes, so that the embedded Kubernetes
// pod templates behave as they do in the Apache Flink operator's CRDs:
//
//   - no `required` lists below a podTemplate (a template may hold only the fields it changes,
//     e.g. a JobManager template with initContainers and no containers). Keys of
//     x-kubernetes-list-type=map lists stay required, as the API server demands;
//   - every `metadata` object below a podTemplate keeps all its fields
//     (x-kubernetes-preserve-unknown-fields) instead of being pruned to a subset;
//   - no descriptions below a podTemplate: the upstream Kubernetes field docs would triple the
//     CRD's size past what the API server stores (about 1.5 MiB per object).
//
// Usage: crdtrim FILE... (files are rewritten in place). `make manifests` runs it.
package main

import (
	"fmt"
	"os"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

func main() {
	for _, path := range os.Args[1:] {
		if err := trimFile(path); err != nil {
			fmt.Fprintf(os.Stderr, "crdtrim: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}

func trimFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	for i := range crd.Spec.Versions {
		if s := crd.Spec.Versions[i].Schema; s != nil && s.OpenAPIV3Schema != nil {
			walk(s.OpenAPIV3Schema, false)
		}
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&crd)
	if err != nil {
		return err
	}
	delete(obj, "status") // controller-gen writes none; the API server owns it
	out, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

// walk visits s; inTemplate says whether s lies below a podTemplate property.
func walk(s *apiextensionsv1.JSONSchemaProps, inTemplate bool) {
	if inTemplate {
		s.Description = ""
		s.Required = nil // walkItems restores the keys of map-typed lists
	}
	for name, child := range s.Properties {
		below := inTemplate || name == "podTemplate"
		if below && name == "metadata" && child.Type == "object" {
			child = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}
		}
		walk(&child, below)
		if name == "podTemplate" {
			child.Description = s.Properties[name].Description
		}
		s.Properties[name] = child
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkItems(s.Items.Schema, s, inTemplate)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walk(s.AdditionalProperties.Schema, inTemplate)
	}
}

// walkItems visits the item schema of list; keys of a map-typed list stay required.
func walkItems(item, list *apiextensionsv1.JSONSchemaProps, inTemplate bool) {
	walk(item, inTemplate)
	if inTemplate && list.XListType != nil && *list.XListType == "map" {
		for _, k := range list.XListMapKeys {
			if _, ok := item.Properties[k]; ok && item.Properties[k].Default == nil && !slices.Contains(item.Required, k) {
				item.Required = append(item.Required, k)
			}
		}
		slices.Sort(item.Required)
	}
}

func ptr[T any](v T) *T { return &v }
