package rest

import (
	"io"
	"net/http"
	"strings"

	"github.com/flinkop/flinkop/fakeflink"
)

// HugeAnswerBytes is the size of a RESTHugeAnswers answer: larger than any answer Flink sends.
const HugeAnswerBytes = 20 << 20

// HostileAnswer is the status and body a JobManager running hostile code answers every call
// with under fault f (fakeflink.RESTFault.Hostile), made as it is read: an endless one never
// ends, so it must be read by a client that stops.
func HostileAnswer(f fakeflink.RESTFault) (int, io.Reader) {
	switch f {
	case fakeflink.RESTHugeAnswers:
		head := `{"jobs":[],"pad":"`
		return http.StatusOK, io.MultiReader(strings.NewReader(head),
			io.LimitReader(repeat('x'), HugeAnswerBytes-int64(len(head))-2), strings.NewReader(`"}`))
	case fakeflink.RESTEndlessAnswers:
		return http.StatusOK, io.MultiReader(strings.NewReader(`{"jobs":[`), endless(`{"jid":"0000","state":"RUNNING"},`))
	case fakeflink.RESTMalformedAnswers:
		return http.StatusOK, strings.NewReader("{\"jobs\": [{\"jid\": 17, \x00\xff\xfe <html>")
	case fakeflink.RESTHugeErrors:
		// 34 bytes a repetition once escaped: the body stays under what an error answer may be
		// (flink.AnswerError), so that its message, not its size, is what the operator cuts.
		line := strings.Repeat("\x1b[31mERROR\x1b[0m \u202e\r", (150<<10)/34)
		return http.StatusInternalServerError, strings.NewReader(`{"errors":["Internal server error.","` + jsonEscape(line) + `\nlevel=info msg=forged"]}`)
	}
	return http.StatusOK, strings.NewReader("{}")
}

// writeHostile writes f's answer to w until it ends or the client goes away.
func writeHostile(w http.ResponseWriter, f fakeflink.RESTFault) {
	status, body := HostileAnswer(f)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = io.Copy(w, body)
}

// repeat is an endless reader of b.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// endless repeats s without end.
func endless(s string) io.Reader { return &cycle{s: s} }

type cycle struct {
	s   string
	off int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.s[c.off:])
		n += k
		c.off = (c.off + k) % len(c.s)
	}
	return n, nil
}

// jsonEscape escapes s for a JSON string (control characters as \u00XX).
func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
