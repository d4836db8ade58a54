"""The top layer: the web pages (views, forms, template tags, page helpers) and seed_demo."""
