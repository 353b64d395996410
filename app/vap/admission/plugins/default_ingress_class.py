"""DefaultIngressClass: an Ingress that names no IngressClass gets the default one.

On the creation of an Ingress (networking.k8s.io, not a subresource) with no spec.ingressClassName and no
``kubernetes.io/ingress.class`` annotation, the plugin (plugin/pkg/admission/network/defaultingressclass)
sets ingressClassName to the IngressClass annotated ``ingressclass.kubernetes.io/is-default-class:
"true"``, the most recently created of several. No default class: the Ingress is left as it is.

The IngressClasses are those pasted in the panes; with none pasted the cluster is taken to have no
default class.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from ._default_class import default_class

PLUGIN = "DefaultIngressClass"
CLASS_ANNOTATION = "kubernetes.io/ingress.class"
DEFAULT_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    attrs = state.attrs
    if not c.acts_on(attrs, "networking.k8s.io", "ingresses"):
        return c.nothing(PLUGIN)
    ingress = attrs.object
    if c.spec(ingress).get("ingressClassName") is not None or CLASS_ANNOTATION in c.annotations(ingress):
        return c.nothing(PLUGIN, "the Ingress names its class")
    classes = c.pasted(stored, ("networking.k8s.io/v1", "networking.k8s.io/v1beta1"), "IngressClass")
    default = default_class(classes, (DEFAULT_ANNOTATION,))
    if default is None:
        return c.nothing(PLUGIN, "no IngressClass pasted is the default one: the Ingress keeps no ingressClassName")
    out, spec = c.with_spec(ingress)
    spec["ingressClassName"] = c.name_of(default)
    return c.changed(PLUGIN, state, out, f"the Ingress names no class: it gets the default {c.name_of(default)!r}")


not_reached = c.not_reached_for(PLUGIN)
