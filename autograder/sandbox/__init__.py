"""The sandbox: a student's kernel runs with nothing of the grader's in reach.

``limits`` holds what a kernel may use; ``cgroup`` the group(s) that limit, count and end
its processes, made by ``cgroup_v1`` or ``cgroup_v2`` as ``cgroup_hierarchy`` finds the
machine's controllers, in the place ``cgroup_delegation`` finds for cgroup v2 (root's, or
a subtree delegated to the grader); ``bubblewrap`` the namespaces and file system it sees;
``kernels`` the Jupyter kernel manager that starts it inside them; ``kernel_guard`` the code
that runs inside the kernel to undo tampering; and ``safe_files`` how the grader writes its
results without following anything planted on disk.
"""
