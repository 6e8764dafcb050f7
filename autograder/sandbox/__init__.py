"""The sandbox: a student's kernel runs with nothing of the grader's in reach.

``limits`` holds what a kernel may use, ``cgroup`` the memory and pids groups that count
and end its processes, ``bubblewrap`` the namespaces and file system it sees, ``kernels``
the Jupyter kernel manager that starts it inside them, ``kernel_guard`` the code that runs
inside the kernel to undo tampering, and ``safe_files`` how the grader writes its results
without following anything planted on disk.
"""
