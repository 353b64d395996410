"""Pure building blocks of MutatingAdmissionPolicy, as kube-apiserver evaluates it.

Restates, in the project's own Python, parts of k8s.io/apiserver
``pkg/admission/plugin/policy/mutating`` (and its ``patch`` package) and of
k8s.io/kubernetes ``pkg/apis/admissionregistration`` (defaulting and API validation):

- :mod:`app.vap.mutating.jsonpatch`: the ``JSONPatch`` mutation: RFC 6902 patches applied with the
  quirks of the JSON Patch library release the apiserver vendors, the CEL ``jsonpatch.escapeKey``
  function and the apiserver's error texts;
- :mod:`app.vap.mutating.applyconfig`: the ``ApplyConfiguration`` mutation: an apply configuration
  merged into the object with structured-merge semantics taken from the kind's OpenAPI schema;
- :mod:`app.vap.mutating.types`: MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding: which
  API versions a Kubernetes version serves, their defaulting and their API validation.

Nothing here compiles or evaluates CEL: callers pass the plain JSON values an expression produced.
"""
