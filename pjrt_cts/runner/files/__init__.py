"""The run's files that other tools and runs read: junit.xml, shard plans, merged shards, submission bundles. No
pytest hooks: any process may call them."""
