package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/templates"
)

// Telegram limits (Bot API): a message text and a document caption.
const (
	TelegramMessageLimit = 4096
	TelegramCaptionLimit = 1024
	// DefaultTelegramAPI is the public Bot API server.
	DefaultTelegramAPI = "https://api.telegram.org"
)

// The template is text/template over a view whose every string was
// escaped when the view was built (tgEsc): Telegram's HTML mode needs
// exactly <, > and & escaped, and html/template's extra entities (&#34;,
// &#43;) would only eat into the 4096-character budget.
var telegramTemplate = template.Must(template.New("telegram.html").Parse(templates.TelegramHTML))

// tgEsc escapes text for Telegram's HTML parse mode.
var tgEsc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// Telegram summary sizes: what fits a phone screen; the PDF has the rest.
const (
	telegramTopFindings = 5
	telegramTopGhosts   = 3
	telegramExcerpt     = 140
)

type tgView struct {
	Score, FindingCount, GhostCount, Calls, Sessions int
	Band, Ledger, Range, Formula, TrustModel         string
	HasPrev                                          bool
	Delta, PrevDate                                  string
	PrevScore                                        int
	Counts                                           []tgCount
	Top                                              []tgFinding
	MoreFindings                                     int
	Ghosts                                           []tgGhost
	MoreGhosts                                       int
}

type tgCount struct {
	Name  string
	Count int
}

type tgFinding struct{ Severity, RuleID, Title, Message, When, Tool, Excerpt string }

type tgGhost struct{ Class, Tool, When, Session, Args string }

// TelegramSummary renders the daily message in Telegram HTML: score, the
// change since the previous report (prev, when there is one), severity
// counts, the top findings and the ghosts. It may exceed one message;
// SplitHTML cuts it safely.
func TelegramSummary(r *analyze.Result, prev *HistoryEntry) (string, error) {
	v := tgView{
		Score: r.Score.Score, Band: severityBand(r.Score.Score), Ledger: tgEsc(shortLedgerName(r)), Range: rangeText(r.Window),
		Formula: tgEsc(r.Score.Formula), TrustModel: tgEsc(r.TrustModel), FindingCount: len(activeFindings(r)),
		GhostCount: countedGhosts(r), Calls: r.Summary.Calls, Sessions: sessionCount(r),
	}
	if prev != nil {
		v.HasPrev, v.PrevDate, v.PrevScore = true, tgEsc(prev.Date), prev.Score
		switch d := r.Score.Score - prev.Score; {
		case d > 0:
			v.Delta = "▲ +" + strconv.Itoa(d)
		case d < 0:
			v.Delta = "▼ " + strconv.Itoa(d)
		default:
			v.Delta = "= unchanged"
		}
	}
	for _, s := range []string{"CRITICAL", "HIGH", "MEDIUM", "LOW"} {
		if n := r.Score.Counts[s]; n > 0 {
			v.Counts = append(v.Counts, tgCount{s, n})
		}
	}
	active := activeFindings(r) // already sorted most severe first
	for i, f := range active {
		if i == telegramTopFindings {
			v.MoreFindings = len(active) - i
			break
		}
		ev := primary(f)
		v.Top = append(v.Top, tgFinding{
			Severity: f.Severity.String(), RuleID: tgEsc(f.RuleID), Title: tgEsc(f.Title), Message: tgEsc(f.Message),
			When: ev.TS.UTC().Format("01-02 15:04"), Tool: tgEsc(ev.Tool), Excerpt: tgEsc(clip(oneLine(ev.Excerpt), telegramExcerpt)),
		})
	}
	n := 0
	for _, g := range r.Ghosts {
		if g.Class == analyze.ClassRevived {
			continue
		}
		if n == telegramTopGhosts {
			v.MoreGhosts = countedGhosts(r) - n
			break
		}
		n++
		v.Ghosts = append(v.Ghosts, tgGhost{Class: tgEsc(string(g.Class)), Tool: tgEsc(g.Tool), When: g.IssuedAt.UTC().Format("01-02 15:04"),
			Session: tgEsc(g.Session), Args: tgEsc(clip(oneLine(g.Args), telegramExcerpt))})
	}
	var b strings.Builder
	if err := telegramTemplate.Execute(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// TelegramCaption is the PDF's caption: short, plain text, within the
// 1024-character caption limit.
func TelegramCaption(r *analyze.Result) string {
	c := fmt.Sprintf("ledger-audit report %s: score %d/100, %d findings, %d ghosts (%s)",
		shortLedgerName(r), r.Score.Score, len(activeFindings(r)), countedGhosts(r), r.GeneratedAt.UTC().Format(time.DateOnly))
	return clipUTF16(c, TelegramCaptionLimit)
}

// utf16Len is how Telegram counts message length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func clipUTF16(s string, limit int) string {
	if utf16Len(s) <= limit {
		return s
	}
	n := 0
	for i, r := range s {
		if n+utf16.RuneLen(r)+1 > limit {
			return s[:i] + "…"
		}
		n += utf16.RuneLen(r)
	}
	return s
}

// htmlAtom is an unbreakable piece of Telegram HTML: a tag, an entity or
// one character of text.
type htmlAtom struct {
	text  string
	tag   string // element name for tags ("b", "code", ...)
	close bool   // a closing tag
}

func atomize(s string) []htmlAtom {
	var out []htmlAtom
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			if j := strings.IndexByte(s[i:], '>'); j > 0 {
				raw := s[i : i+j+1]
				inner := strings.TrimPrefix(raw[1:len(raw)-1], "/")
				if f := strings.FieldsFunc(inner, func(r rune) bool { return r == ' ' || r == '/' || r == '\t' || r == '\n' }); len(f) > 0 {
					out = append(out, htmlAtom{text: raw, tag: strings.ToLower(f[0]), close: strings.HasPrefix(raw, "</")})
					i += j + 1
					continue
				}
			}
		case '&':
			if j := strings.IndexByte(s[i:], ';'); j > 1 && j < 12 {
				out = append(out, htmlAtom{text: s[i : i+j+1]})
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, htmlAtom{text: s[i : i+size]})
		i += size
	}
	return out
}

// SplitHTML cuts Telegram HTML into messages of at most limit UTF-16 code
// units (how Telegram counts; raw length bounds the parsed length). Cuts
// fall at a line break when one is in reach, else at a space, else
// between characters — never inside a tag or an entity. Tags open at a
// cut are closed at the end of the piece and reopened at the start of the
// next, so every piece is well-formed on its own.
func SplitHTML(s string, limit int) []string {
	if utf16Len(s) <= limit {
		return []string{s}
	}
	atoms := atomize(s)
	var out []string
	var stack []htmlAtom // open tags at the current position
	for pos := 0; pos < len(atoms); {
		prefix := ""
		for _, t := range stack {
			prefix += t.text
		}
		st := append([]htmlAtom(nil), stack...)
		size := utf16Len(prefix)
		end, nl, sp := pos, -1, -1
		var nlStack, spStack, endStack []htmlAtom
		for i := pos; i < len(atoms); i++ {
			a := atoms[i]
			next := st
			if a.tag != "" {
				next = applyTag(st, a)
			}
			closers := closingLen(next)
			if size+utf16Len(a.text)+closers > limit {
				break
			}
			size += utf16Len(a.text)
			st = next
			end, endStack = i+1, st
			if a.text == "\n" {
				nl, nlStack = i+1, st
			} else if a.text == " " {
				sp, spStack = i+1, st
			}
		}
		cut, cutStack := end, endStack
		if end < len(atoms) {
			// Prefer a line break in the second half of the piece, then a
			// space, so pieces stay reasonably full.
			if nl > pos && nl-pos >= (end-pos)/2 {
				cut, cutStack = nl, nlStack
			} else if sp > pos && sp-pos >= (end-pos)/2 {
				cut, cutStack = sp, spStack
			} else if nl > pos {
				cut, cutStack = nl, nlStack
			}
		}
		if cut == pos { // limit smaller than one atom plus tags: force progress
			cut, cutStack = pos+1, applyTag(stack, atoms[pos])
		}
		var b strings.Builder
		b.WriteString(prefix)
		for _, a := range atoms[pos:cut] {
			b.WriteString(a.text)
		}
		// The whitespace at a cut is dropped; closers go after it.
		piece := strings.TrimRight(b.String(), " \n")
		for i := len(cutStack) - 1; i >= 0; i-- {
			piece += "</" + cutStack[i].tag + ">"
		}
		if strings.TrimSpace(piece) != "" {
			out = append(out, piece)
		}
		stack, pos = cutStack, cut
	}
	return out
}

func applyTag(stack []htmlAtom, a htmlAtom) []htmlAtom {
	if a.tag == "" {
		return stack
	}
	if !a.close {
		return append(append([]htmlAtom(nil), stack...), a)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].tag == a.tag {
			return append(append([]htmlAtom(nil), stack[:i]...), stack[i+1:]...)
		}
	}
	return stack
}

func closingLen(stack []htmlAtom) int {
	n := 0
	for _, t := range stack {
		n += len(t.tag) + 3
	}
	return n
}

// TelegramClient sends messages and documents through the Bot API. The
// token is part of every request URL, so the client never lets a URL
// reach an error: every error it returns has been scrubbed of the token.
type TelegramClient struct {
	BaseURL string // default DefaultTelegramAPI
	Token   string
	ChatID  string
	HTTP    *http.Client
	// Sleep waits between attempts; tests replace it to run instantly.
	Sleep func(context.Context, time.Duration) error
	// MaxAttempts bounds tries per request (default 5).
	MaxAttempts int
	// MaxRetryAfter caps a 429's retry_after so a hostile or confused
	// server cannot park the daily job for hours (default 60 s).
	MaxRetryAfter time.Duration
}

// TelegramError is a Bot API refusal, without the request URL.
type TelegramError struct {
	Method      string
	Code        int
	Description string
}

func (e *TelegramError) Error() string {
	hint := ""
	switch e.Code {
	case 401:
		hint = " (check POSTURE_TELEGRAM_BOT_TOKEN / --bot-token)"
	case 400, 403:
		hint = " (check POSTURE_TELEGRAM_CHAT_ID / --chat-id and that the bot may post there)"
	}
	return fmt.Sprintf("telegram %s: %d %s%s", e.Method, e.Code, e.Description, hint)
}

type tgResponse struct {
	OK          bool   `json:"ok"`
	ErrorCode   int    `json:"error_code"`
	Description string `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// SendMessage posts one HTML message (already within the limit).
func (c *TelegramClient) SendMessage(ctx context.Context, html string) error {
	form := url.Values{}
	form.Set("chat_id", c.ChatID)
	form.Set("text", html)
	form.Set("parse_mode", "HTML")
	form.Set("disable_web_page_preview", "true")
	body := form.Encode()
	return c.do(ctx, "sendMessage", func() (io.Reader, string, error) {
		return strings.NewReader(body), "application/x-www-form-urlencoded", nil
	})
}

// SendDocument uploads a file with a caption (multipart/form-data).
func (c *TelegramClient) SendDocument(ctx context.Context, filename string, data []byte, caption string) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("chat_id", c.ChatID)
	if caption != "" {
		_ = mw.WriteField("caption", clipUTF16(caption, TelegramCaptionLimit))
	}
	part, err := mw.CreateFormFile("document", filename)
	if err != nil {
		return err
	}
	if _, err := part.Write(data); err != nil {
		return err
	}
	if err := mw.Close(); err != nil {
		return err
	}
	payload, ctype := buf.Bytes(), mw.FormDataContentType()
	return c.do(ctx, "sendDocument", func() (io.Reader, string, error) {
		return bytes.NewReader(payload), ctype, nil
	})
}

func (c *TelegramClient) do(ctx context.Context, method string, body func() (io.Reader, string, error)) error {
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = 5
	}
	capWait := c.MaxRetryAfter
	if capWait <= 0 {
		capWait = 60 * time.Second
	}
	sleep := c.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		base = DefaultTelegramAPI
	}
	endpoint := base + "/bot" + c.Token + "/" + method
	backoff := time.Second
	var last error
	for try := 1; try <= attempts; try++ {
		rd, ctype, err := body()
		if err != nil {
			return c.scrub(err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, rd)
		if err != nil {
			return c.scrub(fmt.Errorf("telegram %s: bad API URL %q", method, base))
		}
		req.Header.Set("Content-Type", ctype)
		resp, err := hc.Do(req)
		if err != nil {
			// *url.Error carries the full URL, token included: keep only
			// the cause.
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			last = c.scrub(fmt.Errorf("telegram %s: cannot reach %s: %v", method, hostOf(base), err))
			if ctx.Err() != nil {
				return last
			}
			if serr := sleep(ctx, backoff); serr != nil {
				return last
			}
			backoff = min(2*backoff, 30*time.Second)
			continue
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		var tr tgResponse
		_ = json.Unmarshal(raw, &tr)
		if resp.StatusCode == http.StatusOK && tr.OK {
			return nil
		}
		code := resp.StatusCode
		if tr.ErrorCode != 0 {
			code = tr.ErrorCode
		}
		desc := tr.Description
		if desc == "" {
			desc = http.StatusText(resp.StatusCode)
		}
		last = c.scrub(&TelegramError{Method: method, Code: code, Description: desc})
		var wait time.Duration
		switch {
		case code == http.StatusTooManyRequests:
			wait = time.Duration(tr.Parameters.RetryAfter) * time.Second
			if wait <= 0 {
				wait = backoff
			}
			wait = min(wait, capWait)
		case code >= 500:
			wait = backoff
			backoff = min(2*backoff, 30*time.Second)
		default:
			// 400, 401, 403 and other client errors will not improve by
			// retrying.
			return last
		}
		if try == attempts {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			return last
		}
	}
	return fmt.Errorf("%w (gave up after %d attempts)", last, attempts)
}

// scrub removes the token from an error's text, whatever produced it.
func (c *TelegramClient) scrub(err error) error {
	if err == nil || c.Token == "" || !strings.Contains(err.Error(), c.Token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.Token, "<bot-token>"))
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return "the Bot API"
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
