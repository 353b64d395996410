"""What kube-apiserver's registry does to an object between mutating and validating admission.

After mutating admission, the generic registry store (k8s.io/apiserver/pkg/registry/generic/registry/
store.go) fills the system fields of a new object and runs the kind's strategy: ``BeforeCreate`` and
``BeforeUpdate`` (k8s.io/apiserver/pkg/registry/rest/create.go, update.go) call the strategy's
``PrepareForCreate`` or ``PrepareForUpdate`` (pkg/registry/<group>/<kind>/strategy.go), which reset the
status, set or bump ``metadata.generation`` and make the kind's own adjustments. Validating admission sees
the result. Earlier, before mutating admission, the create and update handlers record who set which fields
in ``metadata.managedFields`` (the field manager of k8s.io/apimachinery/pkg/util/managedfields).

* :mod:`.meta`: the system fields (uid, creationTimestamp, resourceVersion, deletionTimestamp) and the
  playground's fixed instant;
* :mod:`.strategies`: each kind's PrepareForCreate and PrepareForUpdate;
* :mod:`.qos`: the Pod's QoS class, which the pod strategy sets in its status;
* :mod:`.fieldsets`: the field sets of ``managedFields`` (FieldsV1) and how an update changes them.
"""
