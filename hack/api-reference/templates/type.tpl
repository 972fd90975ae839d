{{- /*
type is the section of .t, a type of the group version .gv: its doc comment,
then for a string type its values, for a struct the CEL rules on it and a
table of its fields.
*/ -}}
{{- define "type" -}}
{{- $t := .t }}{{ $gv := .gv }}
<a id="{{ template "anchor" . }}"></a>

### {{ $t.Name }}
{{ if $t.GVK }}
`apiVersion: {{ $gv.Group }}/{{ $gv.Version }}`, `kind: {{ $t.Name }}`
{{ end -}}
{{ with $t.Doc }}
{{ template "prose" (dict "s" . "br" "\n\n") }}
{{ end -}}
{{ if $t.IsAlias }}
{{- $b := dict "parts" (list) }}{{ template "bounds" (dict "m" $t.Markers "out" $b) }}
Underlying type: `{{ $t.UnderlyingType.Name }}`.{{ with $b.sentence }} {{ . }}{{ end }}
{{ else -}}
{{ with index $t.Markers "kubebuilder:validation:XValidation" }}
Rules checked by the API server:

{{ range . }}- {{ if .Message }}{{ template "prose" (dict "s" .Message) }}{{ else }}`{{ .Rule }}`{{ end }}
{{ end -}}
{{ end }}
{{ if not $t.Members -}}
No fields.
{{ else -}}
| Field | Type | Description |
|---|---|---|
{{ range $t.Members -}}
{{- $n := dict "parts" (list) }}{{ template "notes" (dict "f" . "out" $n) -}}
| `{{ .Name }}` | {{ template "ftype" (dict "gv" $gv "t" .Type) }} | {{ template "prose" (dict "s" .Doc "br" "<br><br>") }}{{ with $n.parts }}<br><br>{{ join " " . }}{{ end }} |
{{ end -}}
{{ end -}}
{{ end -}}
{{- end -}}

{{- /* ftype is a field's type: the group version's types link to their sections, other packages' types name their package (types.Kind: 3 map, 4 pointer, 5 slice). */ -}}
{{- define "ftype" -}}
{{- $t := .t -}}
{{- if eq $t.Kind 4 }}{{ template "ftype" (dict "gv" .gv "t" $t.UnderlyingType) }}
{{- else if eq $t.Kind 5 }}[]{{ template "ftype" (dict "gv" .gv "t" $t.UnderlyingType) }}
{{- else if eq $t.Kind 3 }}map[{{ template "ftype" (dict "gv" .gv "t" $t.KeyType) }}]{{ template "ftype" (dict "gv" .gv "t" $t.ValueType) }}
{{- else if eq (index .gv.Types $t.Name) $t }}[{{ $t.Name }}](#{{ template "anchor" . }})
{{- else if $t.Package }}`{{ $t.Name }}` ({{ $t.Package }})
{{- else }}`{{ $t.Name }}`
{{- end -}}
{{- end -}}

{{- /*
notes appends to .out.parts what a field's own markers say: required or
optional, default, bounds and CEL rules. Markers that crd-ref-docs copied
onto the field from its type are left to the type's section.
*/ -}}
{{- define "notes" -}}
{{- $own := dict -}}
{{- range $k, $v := .f.Markers }}{{ if not (deepEqual (index $.f.Type.Markers $k) $v) }}{{ $_ := set $own $k $v }}{{ end }}{{ end -}}
{{- $out := .out -}}
{{- if or (hasKey $own "required") (hasKey $own "kubebuilder:validation:Required") }}{{ $_ := set $out "parts" (append $out.parts "Required.") }}{{ end -}}
{{- if or (hasKey $own "optional") (hasKey $own "kubebuilder:validation:Optional") }}{{ $_ := set $out "parts" (append $out.parts "Optional.") }}{{ end -}}
{{- with index $own "kubebuilder:default" }}{{ $_ := set $out "parts" (append $out.parts (printf "Default: `%s`." (toJson (index . 0).Value))) }}{{ end -}}
{{- $b := dict "parts" (list) }}{{ template "bounds" (dict "m" $own "out" $b) -}}
{{- with $b.sentence }}{{ $_ := set $out "parts" (append $out.parts .) }}{{ end -}}
{{- range index $own "kubebuilder:validation:XValidation" }}{{ $e := dict "s" (print "`" .Rule "`") }}{{ if .Message }}{{ template "esc" (dict "s" .Message "out" $e) }}{{ end }}{{ $_ := set $out "parts" (append $out.parts (print "Rule: " $e.s)) }}{{ end -}}
{{- end -}}

{{- /*
bounds sets .out.sentence to a sentence of the bound and enum markers in .m,
for the value and (items:) for each item of a list.
*/ -}}
{{- define "bounds" -}}
{{- $m := .m }}{{ $parts := list -}}
{{- range $prefix := list "" "items:" -}}
{{- $each := ternary "" "each item " (eq $prefix "") -}}
{{- with index $m (print "kubebuilder:validation:" $prefix "Enum") }}{{ $vals := list }}{{ range index . 0 }}{{ $vals = append $vals (print "`" . "`") }}{{ end }}{{ $parts = append $parts (print $each "one of " (join ", " $vals)) }}{{ end -}}
{{- range $name := list "Minimum" "Maximum" "MinLength" "MaxLength" "MinItems" "MaxItems" "MinProperties" "MaxProperties" "Pattern" -}}
{{- with index $m (print "kubebuilder:validation:" $prefix $name) -}}
{{- $v := index . 0 -}}
{{- $unit := get (dict "MinLength" "character" "MaxLength" "character" "MinItems" "item" "MaxItems" "item" "MinProperties" "entry" "MaxProperties" "entry") $name -}}
{{- if $unit }}{{ $unit = ternary $unit (print (trimSuffix "y" $unit) (ternary "ies" "s" (hasSuffix "y" $unit))) (eq (print $v) "1") }}{{ end -}}
{{- $phrase := get (dict "Minimum" "minimum %v" "Maximum" "maximum %v" "MinLength" "at least %v %s" "MaxLength" "at most %v %s" "MinItems" "at least %v %s" "MaxItems" "at most %v %s" "MinProperties" "at least %v %s" "MaxProperties" "at most %v %s" "Pattern" "matches `%v`") $name -}}
{{- $parts = append $parts (print $each (ternary (printf $phrase $v $unit) (printf $phrase $v) (ne $unit ""))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /* A validation marker this template does not phrase is named as it is, not dropped. */ -}}
{{- range $k, $v := $m -}}
{{- $name := trimPrefix "items:" (trimPrefix "kubebuilder:validation:" $k) -}}
{{- if and (hasPrefix "kubebuilder:validation:" $k) (not (has $name (list "Enum" "Minimum" "Maximum" "MinLength" "MaxLength" "MinItems" "MaxItems" "MinProperties" "MaxProperties" "Pattern" "XValidation" "Required" "Optional"))) -}}
{{- $parts = append $parts (printf "%s%s %v" (ternary "each item " "" (hasPrefix "kubebuilder:validation:items:" $k)) $name (index $v 0)) -}}
{{- end -}}
{{- end -}}
{{- with $parts }}{{ $s := join "; " . }}{{ $_ := set $.out "sentence" (print (upper (substr 0 1 $s)) (substr 1 (len $s) $s) ".") }}{{ end -}}
{{- end -}}

{{- /*
esc sets .out.s to .s made safe as Markdown prose: | does not end a table
cell, and outside code spans < and > are not taken as HTML.
*/ -}}
{{- define "esc" -}}
{{- $parts := list -}}
{{- range $i, $p := splitList "`" (replace "|" "\\|" .s) -}}
{{- $parts = append $parts (ternary $p ($p | replace "<" "&lt;" | replace ">" "&gt;") (eq (mod $i 2) 1)) -}}
{{- end -}}
{{- $_ := set .out "s" (join "`" $parts) -}}
{{- end -}}

{{- /* prose is a doc comment escaped (esc), its lines joined and its paragraphs separated by .br. */ -}}
{{- define "prose" -}}
{{- $e := dict }}{{ template "esc" (dict "s" .s "out" $e) -}}
{{- $e.s | replace "\n\n" "\x00" | replace "\n" " " | replace "\x00" (default "" .br) -}}
{{- end -}}
