package v1beta1

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

func ptr[T any](v T) *T { return &v }

func jsonRaw(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }
