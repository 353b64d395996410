"""The admission plugins built into kube-apiserver that it enables by default and that act on what the
playground evaluates, one module each, named after the plugin.

A plugin's Admit (it may change the object) runs with the mutating plugins, before the admission
webhooks; the checks a plugin makes in its Validate pass are a second module (``<plugin>_validate``)
that runs after mutating admission, before ValidatingAdmissionPolicy. None of them runs when the Request
pane says ``asStored: false``. What a plugin reads from the cluster (ServiceAccounts, PriorityClasses,
Namespaces, LimitRanges, StorageClasses, ...) comes from the objects pasted in the panes; each module
says what it assumes when they are not pasted.
"""
