package config

import (
	"fmt"
	"strings"
)

// maxErrors bounds how many problems one Parse reports; a hostile document
// could otherwise produce millions.
const maxErrors = 200

// Error is one problem found in a configuration.
type Error struct {
	// Path locates the problem in the document, e.g.
	// "instances[1].lines[0].group"; empty when the problem concerns the
	// document as a whole.
	Path string
	// Line is the 1-based line in the document, 0 when unknown.
	Line int
	// Msg describes the problem.
	Msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	return b.String()
}

// Errors is every problem found in a configuration, in document order where
// one exists. Parse and Load return an Errors (possibly wrapped) whenever the
// document is rejected.
type Errors []*Error

func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no errors"
	case 1:
		return es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(es))
	for _, e := range es {
		b.WriteString("\n\t")
		b.WriteString(e.Error())
	}
	return b.String()
}

// As lets errors.As reach the individual errors: a **Error target receives
// the first one. (Errors has no Unwrap() []error method, which Go 1.19's
// vet rejects.)
func (es Errors) As(target interface{}) bool {
	if p, ok := target.(**Error); ok && len(es) > 0 {
		*p = es[0]
		return true
	}
	return false
}

// errorList collects errors up to maxErrors.
type errorList struct {
	errs      Errors
	truncated bool
}

func (l *errorList) add(path string, line int, format string, args ...interface{}) {
	if l.full() {
		l.truncated = true
		return
	}
	l.errs = append(l.errs, &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (l *errorList) full() bool { return len(l.errs) >= maxErrors }

func (l *errorList) empty() bool { return len(l.errs) == 0 }

// result returns the collected errors as an error, nil when there are none.
func (l *errorList) result() error {
	if len(l.errs) == 0 {
		return nil
	}
	errs := l.errs
	if l.truncated {
		errs = append(errs, &Error{Msg: fmt.Sprintf("too many errors; only the first %d are reported", maxErrors)})
	}
	return errs
}
