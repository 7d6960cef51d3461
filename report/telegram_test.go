package report

import (
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/finding"
)

const testToken = "123456789:AAH-test-token-must-never-leak_0123456789"

// botAPI is a fake Telegram Bot API that records every request and
// answers from a script (one status per request, then 200).
type botAPI struct {
	mu       sync.Mutex
	requests []recorded
	script   []func(w http.ResponseWriter)
}

type recorded struct {
	Path     string
	Form     url.Values
	FileName string
	File     []byte
}

func newBotAPI(t *testing.T, script ...func(w http.ResponseWriter)) (*botAPI, *httptest.Server) {
	b := &botAPI{script: script}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded{Path: r.URL.Path}
		ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct == "multipart/form-data" {
			mr := multipart.NewReader(r.Body, params["boundary"])
			rec.Form = url.Values{}
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				data, _ := io.ReadAll(p)
				if p.FileName() != "" {
					rec.FileName, rec.File = p.FileName(), data
				} else {
					rec.Form.Add(p.FormName(), string(data))
				}
			}
		} else {
			_ = r.ParseForm()
			rec.Form = r.PostForm
		}
		b.mu.Lock()
		n := len(b.requests)
		b.requests = append(b.requests, rec)
		b.mu.Unlock()
		if n < len(b.script) && b.script[n] != nil {
			b.script[n](w)
			return
		}
		fmt.Fprint(w, `{"ok":true,"result":{}}`)
	}))
	t.Cleanup(srv.Close)
	return b, srv
}

func reply(code int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// sleeps records the waits a client asked for, without waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return nil
}

func testClient(srv *httptest.Server, s *sleeps) *TelegramClient {
	return &TelegramClient{BaseURL: srv.URL, Token: testToken, ChatID: "-100123", Sleep: s.sleep, HTTP: srv.Client()}
}

func TestSendMessageRequest(t *testing.T) {
	api, srv := newBotAPI(t)
	var s sleeps
	if err := testClient(srv, &s).SendMessage(context.Background(), "<b>score</b> 42 &amp; more"); err != nil {
		t.Fatal(err)
	}
	if len(api.requests) != 1 {
		t.Fatalf("%d requests", len(api.requests))
	}
	r := api.requests[0]
	if r.Path != "/bot"+testToken+"/sendMessage" {
		t.Errorf("path %q", r.Path)
	}
	if r.Form.Get("chat_id") != "-100123" || r.Form.Get("parse_mode") != "HTML" || r.Form.Get("text") != "<b>score</b> 42 &amp; more" || r.Form.Get("disable_web_page_preview") != "true" {
		t.Errorf("form %v", r.Form)
	}
}

func TestSendDocumentUpload(t *testing.T) {
	api, srv := newBotAPI(t)
	var s sleeps
	pdf := []byte("%PDF-1.3 fake body")
	long := strings.Repeat("é", 2000)
	if err := testClient(srv, &s).SendDocument(context.Background(), "ledger-audit-2026-11-30.pdf", pdf, long); err != nil {
		t.Fatal(err)
	}
	r := api.requests[0]
	if r.Path != "/bot"+testToken+"/sendDocument" || r.FileName != "ledger-audit-2026-11-30.pdf" || string(r.File) != string(pdf) {
		t.Errorf("upload path=%q file=%q (%d bytes)", r.Path, r.FileName, len(r.File))
	}
	if r.Form.Get("chat_id") != "-100123" {
		t.Errorf("chat_id %q", r.Form.Get("chat_id"))
	}
	if n := utf16Len(r.Form.Get("caption")); n > TelegramCaptionLimit || n < 1000 {
		t.Errorf("caption of %d UTF-16 units, want clipped to at most %d", n, TelegramCaptionLimit)
	}
}

func TestRetryAfter429(t *testing.T) {
	api, srv := newBotAPI(t,
		reply(429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}`),
		reply(429, `{"ok":false,"error_code":429,"description":"Too Many Requests","parameters":{"retry_after":3600}}`),
	)
	var s sleeps
	if err := testClient(srv, &s).SendMessage(context.Background(), "hi"); err != nil {
		t.Fatalf("429 then OK should succeed: %v", err)
	}
	if len(api.requests) != 3 {
		t.Errorf("%d requests, want 3 (two 429s, then success)", len(api.requests))
	}
	want := []time.Duration{3 * time.Second, 60 * time.Second} // retry_after honoured, then capped
	if fmt.Sprint(s.got) != fmt.Sprint(want) {
		t.Errorf("slept %v, want %v", s.got, want)
	}
}

func TestServerErrorsBackOffThenGiveUp(t *testing.T) {
	api, srv := newBotAPI(t, reply(502, "bad gateway"), reply(500, `{"ok":false,"error_code":500,"description":"Internal"}`))
	var s sleeps
	if err := testClient(srv, &s).SendMessage(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.got) != fmt.Sprint([]time.Duration{time.Second, 2 * time.Second}) || len(api.requests) != 3 {
		t.Errorf("backoff %v over %d requests", s.got, len(api.requests))
	}

	always := make([]func(http.ResponseWriter), 10)
	for i := range always {
		always[i] = reply(503, `{"ok":false,"error_code":503,"description":"Service Unavailable"}`)
	}
	api, srv = newBotAPI(t, always...)
	s = sleeps{}
	c := testClient(srv, &s)
	c.MaxAttempts = 4
	err := c.SendMessage(context.Background(), "hi")
	if err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") || len(api.requests) != 4 {
		t.Errorf("persistent 503: err=%v after %d requests", err, len(api.requests))
	}
	if strings.Contains(err.Error(), testToken) {
		t.Error("token in error")
	}
}

func TestClientErrorsFailAtOnce(t *testing.T) {
	for _, code := range []int{400, 401, 403} {
		api, srv := newBotAPI(t, reply(code, fmt.Sprintf(`{"ok":false,"error_code":%d,"description":"Unauthorized"}`, code)))
		var s sleeps
		err := testClient(srv, &s).SendMessage(context.Background(), "hi")
		if err == nil || len(api.requests) != 1 || len(s.got) != 0 {
			t.Errorf("%d: err=%v, %d requests, slept %v; want one request, no retry", code, err, len(api.requests), s.got)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprint(code)) || strings.Contains(err.Error(), testToken) {
			t.Errorf("%d: error %q", code, err)
		}
		if code == 401 && !strings.Contains(err.Error(), "POSTURE_TELEGRAM_BOT_TOKEN") {
			t.Errorf("401 error does not say which credential to check: %v", err)
		}
	}
}

// TestUnreachableAPIHidesToken: Go's *url.Error quotes the whole request
// URL, token included; the client must never pass it on.
func TestUnreachableAPIHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	var s sleeps
	c := &TelegramClient{BaseURL: base, Token: testToken, ChatID: "1", Sleep: s.sleep, MaxAttempts: 2}
	err := c.SendMessage(context.Background(), "hi")
	if err == nil {
		t.Fatal("no error from a closed server")
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "/bot") {
		t.Errorf("error leaks the request URL: %v", err)
	}
	if !strings.Contains(err.Error(), "cannot reach "+base) {
		t.Errorf("error does not name the server: %v", err)
	}
	// A base URL that itself is broken must not echo the token either.
	c.BaseURL = "http://[::1"
	if err := c.SendMessage(context.Background(), "hi"); err == nil || strings.Contains(err.Error(), testToken) {
		t.Errorf("bad base URL: %v", err)
	}
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func checkPieces(t *testing.T, orig string, pieces []string, limit int) {
	t.Helper()
	var text strings.Builder
	for i, p := range pieces {
		if n := utf16Len(p); n > limit {
			t.Errorf("piece %d has %d UTF-16 units, limit %d", i, n, limit)
		}
		// Tags balanced within each piece.
		var stack []string
		for _, tag := range tagRE.FindAllString(p, -1) {
			name := strings.Trim(strings.Fields(strings.Trim(tag, "<>/"))[0], "/")
			if strings.HasPrefix(tag, "</") {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					t.Fatalf("piece %d: unbalanced %s in %q", i, tag, p)
				}
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, name)
			}
		}
		if len(stack) != 0 {
			t.Errorf("piece %d leaves %v open", i, stack)
		}
		// No cut inside an entity: every & starts a complete entity.
		if regexp.MustCompile(`&[a-z#0-9]*$`).MatchString(p) || regexp.MustCompile(`^[a-z#0-9]*;`).MatchString(tagRE.ReplaceAllString(p, "")) {
			t.Errorf("piece %d cut inside an entity: ...%q", i, p[max(0, len(p)-20):])
		}
		text.WriteString(tagRE.ReplaceAllString(p, ""))
	}
	// Nothing lost but the whitespace at the cuts.
	norm := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if norm(text.String()) != norm(tagRE.ReplaceAllString(orig, "")) {
		t.Error("splitting lost or changed text")
	}
}

func TestSplitHTML(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 13000; i++ {
		fmt.Fprintf(&b, "• <b>CRITICAL</b> <code>ASI02-%d</code> rm -rf /home/zoë/données &amp; curl &lt;x&gt; 🚨 <i>line %d</i>\n", i, i)
	}
	msg := b.String()
	pieces := SplitHTML(msg, TelegramMessageLimit)
	if len(pieces) < 3 {
		t.Fatalf("%d pieces for %d characters", len(pieces), utf16Len(msg))
	}
	checkPieces(t, msg, pieces, TelegramMessageLimit)
	for i, p := range pieces[:len(pieces)-1] {
		if !strings.HasSuffix(p, "</i>") {
			t.Errorf("piece %d does not end at a line boundary: ...%q", i, p[len(p)-30:])
		}
	}

	// One huge <pre> block with no newline: cut at spaces, the tag closed
	// and reopened around each cut.
	pre := "<pre>" + strings.Repeat("échec &amp; mat ", 900) + "</pre>"
	pieces = SplitHTML(pre, 1000)
	checkPieces(t, pre, pieces, 1000)
	for i, p := range pieces {
		if !strings.HasPrefix(p, "<pre>") || !strings.HasSuffix(p, "</pre>") {
			t.Errorf("piece %d not wrapped in <pre>: %q…", i, p[:20])
		}
	}
	// No space at all: still cut, between characters, never mid-entity.
	dense := strings.Repeat("a&lt;", 3000)
	checkPieces(t, dense, SplitHTML(dense, 4096), 4096)

	if got := SplitHTML("short <b>one</b>", 4096); len(got) != 1 || got[0] != "short <b>one</b>" {
		t.Errorf("short message changed: %q", got)
	}
}

func TestTelegramSummary(t *testing.T) {
	r := fixtureResult()
	r.Findings[0].Message = `deleted <everything> & "more"`
	prev := &HistoryEntry{Date: "2026-11-29", Score: 35}
	msg, err := TelegramSummary(r, prev)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<b>Agent posture: 0/100</b>",
		"▼ -35 since 2026-11-29 (35)",
		"deleted &lt;everything&gt; &amp; \"more\"",
		"<b>Top findings</b>",
		"…and 8 more in the PDF.",
		"<b>Ghost calls</b>",
		"<code>cronjob</code>",
		"/home/zoë/projets/données.txt",
		"CRITICAL 4",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("summary lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "&#") {
		t.Error("summary uses numeric entities where plain text is valid Telegram HTML")
	}
	// Escaping happens for every field, including the tool and session
	// names an agent controls.
	r2 := fixtureResult()
	r2.Ghosts[0].Session = "<b>fake</b>"
	r2.Findings[0].Evidence[0].Tool = "a&b<i>"
	m2, _ := TelegramSummary(r2, nil)
	if strings.Contains(m2, "<b>fake</b>") || strings.Contains(m2, "a&b<i>") || !strings.Contains(m2, "&lt;b&gt;fake&lt;/b&gt;") {
		t.Error("agent-controlled names reach the message unescaped")
	}
	if strings.Contains(msg, "revived") || strings.Contains(msg, "delegate_task") {
		t.Error("revived ghosts are not counted and should not be listed")
	}
	// Only Telegram's tags.
	for _, tag := range tagRE.FindAllString(msg, -1) {
		name := strings.Trim(strings.Fields(strings.Trim(tag, "<>/"))[0], "/")
		switch name {
		case "b", "i", "code", "pre", "a":
		default:
			t.Errorf("tag %s is not allowed in Telegram HTML", tag)
		}
	}
	first, _ := TelegramSummary(r, nil)
	if !strings.Contains(first, "first report") {
		t.Error("no 'first report' without history")
	}
	clean := fixtureResult()
	clean.Findings, clean.Ghosts = nil, nil
	clean.Score = finding.Compute(nil)
	up, _ := TelegramSummary(clean, prev)
	if !strings.Contains(up, "▲ +65") || strings.Contains(up, "Top findings") {
		t.Errorf("clean day summary wrong:\n%s", up)
	}
	if c := TelegramCaption(r); utf16Len(c) > TelegramCaptionLimit || !strings.Contains(c, "score 0/100") {
		t.Errorf("caption %q", c)
	}
}
