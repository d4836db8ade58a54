"""Play from Discord (docs/discord.md): the ``/sawbones`` slash command answered by an
ordinary Django view (Discord's Interactions Endpoint URL, signed with Ed25519), and the
Discord format of a campaign's webhooks. An interface on top of the same access
functions, services and selectors as the API: it decides nothing of its own."""
