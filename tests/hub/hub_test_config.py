"""The hub tier's JupyterHub configuration: the course's own, plus what only a test needs.

The course's ``docs/jupyterhub/jupyterhub_config.py`` is loaded as it is (its settings
come from the environment the fixture sets); on top of it: the dummy authenticator with
one shared password in place of PAM, the proxy and the hub on free loopback ports, the
hub's state in the test's folder, and a service whose token lets the test start servers
and run commands in the instructor's.
"""

import os

c = get_config()  # noqa: F821 - JupyterHub injects get_config and load_subconfig

load_subconfig(os.environ["WINDOWMEM_HUB_COURSE_CONFIG"])  # noqa: F821

state = os.environ["WINDOWMEM_HUB_STATE"]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ["WINDOWMEM_HUB_PASSWORD"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ["WINDOWMEM_HUB_PORT"])
c.ConfigurableHTTPProxy.command = [os.environ["WINDOWMEM_HUB_PROXY"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ['WINDOWMEM_HUB_PROXY_API_PORT']}"
c.ConfigurableHTTPProxy.auth_token = os.environ["WINDOWMEM_HUB_PROXY_TOKEN"]
c.JupyterHub.db_url = f"sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{state}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = f"{state}/jupyterhub.pid"
# each user's server on a free loopback port
c.Spawner.ip = "127.0.0.1"
c.JupyterHub.services = [{"name": "hub-test", "api_token": os.environ["WINDOWMEM_HUB_API_TOKEN"]}]
c.JupyterHub.load_roles = [
    {
        "name": "hub-test",
        "scopes": ["admin:users", "admin:servers", "access:servers", "list:users", "read:users"],
        "services": ["hub-test"],
    }
]
