"""Everything between attrib and a model: settings, backends, the one client, cache, tokens and prices."""
