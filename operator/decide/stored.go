package decide

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Stored spec copies: status keeps up to two (lastReconciledSpec, lastStableSpec), and the
// whole object must stay under the API server's size limit. A copy is stored as JSON (what
// the Apache operator stores) while it is small; a larger one is gzipped and base64-encoded
// behind storedGzipPrefix, which keeps two copies of the largest valid spec far below the
// limit. Encoding is deterministic, so equal specs still have equal stored strings.
const (
	// MaxPlainStoredSpec is the largest stored copy kept as plain JSON.
	MaxPlainStoredSpec = 32 << 10
	storedGzipPrefix   = "gzip+base64:"
	// maxStoredSpec bounds what a stored copy may inflate to (a corrupt or hostile value).
	maxStoredSpec = 4 << 20
)

// EncodeStored renders a reconciled spec (of either kind) as stored in status.
func EncodeStored(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode reconciled spec: %v", err)) // plain structs always encode
	}
	if len(data) <= MaxPlainStoredSpec {
		return string(data)
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write(data)                                  // writes to memory do not fail
	_ = zw.Close()
	return storedGzipPrefix + base64.StdEncoding.EncodeToString(b.Bytes())
}

// ParseStored reads a reconciled spec (of either kind) stored in status; "" gives nil.
func ParseStored[T any](s string) (*T, error) {
	if s == "" {
		return nil, nil
	}
	data := []byte(s)
	if enc, ok := strings.CutPrefix(s, storedGzipPrefix); ok {
		var err error
		if data, err = inflate(enc); err != nil {
			return nil, fmt.Errorf("parse reconciled spec: %w", err)
		}
	}
	var r T
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("parse reconciled spec: %w", err)
	}
	return &r, nil
}

func inflate(enc string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxStoredSpec+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStoredSpec {
		return nil, fmt.Errorf("stored spec inflates past %d bytes", maxStoredSpec)
	}
	return data, nil
}
