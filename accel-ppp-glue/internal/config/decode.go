package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxConfigSize is the largest cp.yaml accepted, in bytes.
const MaxConfigSize = 16 << 20

// Structural limits checked on the parsed document before it is decoded.
// cp.yaml nests seven levels deep and no mapping of it has more than ten
// keys; the limits leave ample room while keeping hostile documents from
// exhausting the decoder (whose duplicate-key check is quadratic in the
// number of keys of a mapping).
const (
	maxDepth       = 32
	maxMappingKeys = 64
)

// maxNodes bounds the nodes of a document (a variable for tests).
var maxNodes = 1 << 22

// Load reads and parses the configuration file at path.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes and validates a cp.yaml document. On failure the error is an
// Errors listing every problem found.
func Parse(data []byte) (cfg *Config, err error) {
	defer func() {
		// Nothing below is expected to panic; this keeps a bug (ours or the
		// YAML library's) on hostile input from taking the process down.
		if r := recover(); r != nil {
			cfg = nil
			err = Errors{{Msg: fmt.Sprintf("internal error while parsing configuration: %v", r)}}
		}
	}()
	if len(data) > MaxConfigSize {
		return nil, Errors{{Msg: fmt.Sprintf("document larger than %d bytes", MaxConfigSize)}}
	}
	if errs := preflight(data); errs != nil {
		return nil, errs
	}

	var raw rawConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var decodeErrs errorList
	if derr := dec.Decode(&raw); derr != nil {
		var te *yaml.TypeError
		if !errors.As(derr, &te) {
			return nil, Errors{yamlError(derr)}
		}
		if !translateTypeError(data, te, &decodeErrs) {
			// The decoder could not place a value: the affected part of
			// raw is empty and validating it would only add noise.
			return nil, decodeErrs.result()
		}
	}

	b := newBuilder()
	cfg = b.build(&raw)
	if decodeErrs.empty() && b.errs.empty() {
		return cfg, nil
	}
	all := decodeErrs
	for _, e := range b.errs.errs {
		all.add(e.Path, e.Line, "%s", e.Msg)
	}
	all.truncated = all.truncated || b.errs.truncated
	return nil, all.result()
}

// preflight parses the document into a node tree and checks its shape:
// exactly one document, a mapping at the top, bounded depth, node count and
// mapping size, scalar keys, no duplicate keys.
func preflight(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return Errors{{Msg: "empty document"}}
		}
		return Errors{yamlError(err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
	case err != nil:
		return Errors{yamlError(err)}
	default:
		return Errors{{Line: extra.Line, Msg: "more than one YAML document; exactly one expected"}}
	}

	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return Errors{{Line: root.Line, Msg: "top level must be a mapping, found " + describe(root)}}
	}
	c := checker{}
	c.walk(root, nil)
	return c.errs.result()
}

type checker struct {
	nodes int
	errs  errorList
}

// pathSeg is a step of a path: a mapping key (index -1) or a sequence
// index. Paths are rendered only for errors.
type pathSeg struct {
	key   string
	index int
}

func renderPath(segs []pathSeg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func (c *checker) walk(n *yaml.Node, path []pathSeg) {
	if c.errs.full() {
		return
	}
	c.nodes++
	if c.nodes == maxNodes+1 {
		c.errs.add("", n.Line, "document has more than %d nodes", maxNodes)
	}
	if c.nodes > maxNodes {
		return
	}
	if len(path) >= maxDepth {
		c.errs.add(renderPath(path), n.Line, "nested more than %d levels deep", maxDepth)
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content)/2 > maxMappingKeys {
			c.errs.add(renderPath(path), n.Line, "mapping has %d keys, at most %d are allowed", len(n.Content)/2, maxMappingKeys)
			return
		}
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			c.nodes++
			if k.Kind != yaml.ScalarNode {
				c.errs.add(renderPath(path), k.Line, "mapping key must be a scalar, found %s", describe(k))
				continue
			}
			kpath := append(path, pathSeg{key: k.Value, index: -1})
			if first, dup := seen[k.Value]; dup {
				c.errs.add(renderPath(kpath), k.Line, "duplicate key (first at line %d)", first)
				continue
			}
			seen[k.Value] = k.Line
			c.walk(v, kpath)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			c.walk(item, append(path, pathSeg{index: i}))
		}
	}
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

var (
	reSyntax       = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	reTypeLine     = regexp.MustCompile(`^line (\d+): (.*)$`)
	reUnknownField = regexp.MustCompile(`^field (.*) not found in type \S+$`)
	reCannot       = regexp.MustCompile("^cannot unmarshal (!![a-z]+)(?: `(.*)`)? into (\\S+)$")
)

// yamlError turns an error of the YAML library into an *Error.
func yamlError(err error) *Error {
	msg := err.Error()
	if m := reSyntax.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Msg: "invalid YAML: " + m[2]}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return &Error{Msg: "invalid YAML: " + msg}
}

// translateTypeError converts the strict decoder's complaints into errors
// with paths. It reports whether all of them were unknown keys, after which
// the rest of the document decoded normally and is worth validating.
func translateTypeError(data []byte, te *yaml.TypeError, out *errorList) (onlyUnknownKeys bool) {
	type entry struct {
		line int
		msg  string
	}
	entries := make([]entry, 0, len(te.Errors))
	lines := make(map[int]bool)
	for _, s := range te.Errors {
		e := entry{msg: s}
		if m := reTypeLine.FindStringSubmatch(s); m != nil {
			e.line, _ = strconv.Atoi(m[1])
			e.msg = m[2]
			lines[e.line] = true
		}
		entries = append(entries, e)
	}
	idx := indexLines(data, lines)

	onlyUnknownKeys = true
	for _, e := range entries {
		if m := reUnknownField.FindStringSubmatch(e.msg); m != nil {
			path, ok := idx.keys[lineKey{e.line, m[1]}]
			if !ok {
				path = m[1]
			}
			out.add(path, e.line, "unknown key")
			continue
		}
		onlyUnknownKeys = false
		if m := reCannot.FindStringSubmatch(e.msg); m != nil {
			path := idx.find(e.line, m[1], m[2])
			out.add(path, e.line, "expected %s, found %s", describeGoType(m[3]), describeTag(m[1]))
			continue
		}
		out.add("", e.line, "%s", e.msg)
	}
	return onlyUnknownKeys
}

type lineKey struct {
	line int
	key  string
}

type lineNode struct {
	tag   string
	value string
	path  string
}

// pathIndex maps lines of the document to the paths of the keys and values
// found on them.
type pathIndex struct {
	keys  map[lineKey]string
	nodes map[int][]lineNode
}

// find returns the path of the first value on line with the given tag and
// value (as the decoder quotes it: cut to 7 bytes and "..." when longer than
// 10), or of the first value on that line, or "" when there is none.
func (x *pathIndex) find(line int, tag, value string) string {
	ns := x.nodes[line]
	match := func(v string) bool { return v == value }
	if len(value) == 10 && strings.HasSuffix(value, "...") {
		match = func(v string) bool { return len(v) > 10 && v[:7] == value[:7] }
	}
	for _, n := range ns {
		if n.tag == tag && (tag == "!!map" || tag == "!!seq" || match(n.value)) {
			return n.path
		}
	}
	if len(ns) > 0 {
		return ns[0].path
	}
	return ""
}

// indexLines parses data again and records the paths of keys and values on
// the given lines. data is known to parse.
func indexLines(data []byte, lines map[int]bool) *pathIndex {
	x := &pathIndex{keys: make(map[lineKey]string), nodes: make(map[int][]lineNode)}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 {
		return x
	}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if depth > maxDepth {
			return
		}
		if lines[n.Line] {
			x.nodes[n.Line] = append(x.nodes[n.Line], lineNode{tag: n.ShortTag(), value: n.Value, path: path})
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				kpath := joinPath(path, k.Value)
				if lines[k.Line] {
					lk := lineKey{k.Line, k.Value}
					if _, seen := x.keys[lk]; !seen {
						x.keys[lk] = kpath
					}
				}
				walk(v, kpath, depth+1)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	}
	walk(doc.Content[0], "", 1)
	return x
}

// describeGoType names what a decoder target type expects.
func describeGoType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a sequence"
	case strings.Contains(t, ".raw"):
		return "a mapping"
	}
	return t
}

func describeTag(tag string) string {
	switch tag {
	case "!!str":
		return "a string"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!map":
		return "a mapping"
	case "!!seq":
		return "a sequence"
	case "!!binary":
		return "binary data"
	case "!!timestamp":
		return "a timestamp"
	}
	return "a value tagged " + tag
}

// describe names the kind of a node for error messages, with its value for
// scalars.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		tag := n.ShortTag()
		if tag == "!!null" {
			return "null"
		}
		v := n.Value
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		return fmt.Sprintf("%s %q", describeTag(tag), v)
	}
	return "nothing"
}
