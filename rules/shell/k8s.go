package shell

import (
	"bytes"
	"errors"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"gopkg.in/yaml.v3"
)

// podSpec is the part of a Kubernetes pod specification that says what
// runs and what of the node it reaches.
type podSpec struct {
	HostPID        bool           `yaml:"hostPID"`
	Volumes        []podVolume    `yaml:"volumes"`
	Containers     []podContainer `yaml:"containers"`
	InitContainers []podContainer `yaml:"initContainers"`
}

type podVolume struct {
	Name     string `yaml:"name"`
	HostPath *struct {
		Path string `yaml:"path"`
	} `yaml:"hostPath"`
}

type podContainer struct {
	Command      []string `yaml:"command"`
	Args         []string `yaml:"args"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// k8sObject holds the places a pod specification sits in the workload
// kinds: a Pod's spec, a Job's or Deployment's template, a CronJob's job
// template.
type k8sObject struct {
	Kind string `yaml:"kind"`
	Spec struct {
		podSpec     `yaml:",inline"`
		Template    struct{ Spec podSpec } `yaml:"template"`
		JobTemplate struct {
			Spec struct {
				Template struct{ Spec podSpec } `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"`
	} `yaml:"spec"`
}

// helmExprRe is a Go template action in a Helm chart's manifest.
var helmExprRe = refilter.MustCompile(`\{\{-?[^}]*-?\}\}`)

// ManifestCommands returns the commands the pods of Kubernetes
// manifests run, each as its argv, with the paths under hostPath
// mounts rewritten to the node's: a Job applied with kubectl runs its
// container's command as surely as "kubectl exec" runs one, and with
// "/" of the node mounted at /host, "rm -rf /host/etc" deletes the
// node's /etc. Helm template actions are blanked first so a chart's
// templates parse.
func ManifestCommands(content string) [][]string {
	if !strings.Contains(content, "containers") {
		return nil
	}
	if strings.Contains(content, "{{") {
		content = helmExprRe.ReplaceAllString(content, "tpl")
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(content)))
	var out [][]string
	for n := 0; n < 32 && len(out) < 32; n++ {
		var obj k8sObject
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			continue // one malformed document; the next may parse
		}
		for _, spec := range []podSpec{obj.Spec.podSpec, obj.Spec.Template.Spec, obj.Spec.JobTemplate.Spec.Template.Spec} {
			out = append(out, spec.commands()...)
		}
	}
	return out
}

// hostMounts are a container's mounts of node directories, as {node
// path, container path} pairs.
func (s podSpec) hostMounts(c podContainer) [][2]string {
	var pairs [][2]string
	for _, m := range c.VolumeMounts {
		for _, v := range s.Volumes {
			if v.Name == m.Name && v.HostPath != nil && v.HostPath.Path != "" && m.MountPath != "" {
				pairs = append(pairs, [2]string{v.HostPath.Path, m.MountPath})
			}
		}
	}
	return pairs
}

func (s podSpec) commands() [][]string {
	var out [][]string
	for _, c := range append(append([]podContainer(nil), s.InitContainers...), s.Containers...) {
		argv := append(append([]string(nil), c.Command...), c.Args...)
		if len(argv) == 0 {
			continue
		}
		if s.HostPID {
			// nsenter -t 1 in a pod sharing the node's PIDs runs there.
			if h := nsenterHost(argv); h != nil {
				argv = h
			}
		}
		if pairs := s.hostMounts(c); len(pairs) > 0 {
			argv = rewriteMounts(argv, pairs)
		}
		out = append(out, argv)
	}
	return out
}

// manifestFiles are the session's files a "kubectl apply -f/-k" or
// "helm install|upgrade|template CHART" reads: the named files, or the
// YAML files below a named directory.
func (w *walker) manifestFiles(prog string, f []string) []string {
	var roots []string
	switch prog {
	case "kubectl":
		if len(f) == 0 || (f[0] != "apply" && f[0] != "create" && f[0] != "replace" && f[0] != "run") {
			return nil
		}
		for i, a := range f {
			switch {
			case (a == "-f" || a == "--filename" || a == "-k" || a == "--kustomize") && i+1 < len(f):
				roots = append(roots, f[i+1])
			case strings.HasPrefix(a, "--filename="), strings.HasPrefix(a, "--kustomize="):
				roots = append(roots, a[strings.IndexByte(a, '=')+1:])
			}
		}
	case "helm":
		if len(f) < 2 || (f[0] != "install" && f[0] != "upgrade" && f[0] != "template") {
			return nil
		}
		var pos []string
		for _, a := range f[1:] {
			if !strings.HasPrefix(a, "-") {
				pos = append(pos, a)
			}
		}
		if len(pos) > 0 {
			roots = append(roots, pos[len(pos)-1]) // RELEASE CHART: the chart
		}
	}
	var out []string
	for _, r := range roots {
		if r == "-" {
			continue
		}
		if key, file := w.st.LookupFile(r); file != nil && !file.Downloaded {
			out = append(out, key)
			continue
		}
		dir := CleanPath(r)
		for key, file := range w.st.Files {
			if !file.Downloaded && (strings.HasSuffix(key, ".yaml") || strings.HasSuffix(key, ".yml")) && strings.HasPrefix(key, dir+"/") && path.Base(key) != "Chart.yaml" && path.Base(key) != "values.yaml" {
				out = append(out, key)
			}
		}
	}
	sort.Strings(out)
	if len(out) > 16 {
		out = out[:16]
	}
	return out
}

// applyManifests walks the commands of the manifests a kubectl or helm
// command applies: the session's files it names, and for "-f -" its
// standard input.
func (w *walker) applyManifests(prog string, f []string, c ctx, in stdinInfo) {
	for _, key := range w.manifestFiles(prog, f) {
		cc := c.with(prog + " apply (" + key + ")")
		cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
		for _, argv := range ManifestCommands(w.st.Files[key].Content) {
			w.emit(newRaw(argv), cc, stdinInfo{})
		}
	}
	if prog == "kubectl" && in.known && (contains(f, "-") || contains(f, "--filename=-")) {
		for _, argv := range ManifestCommands(in.content) {
			w.emit(newRaw(argv), c.with("kubectl apply (stdin)"), stdinInfo{})
		}
	}
}
