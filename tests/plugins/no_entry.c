/*
 * tests/plugins/no_entry.c - a shared object named like the plugin of kind
 * "test-no-entry" but without mortar_plugin_component(): refused
 * (tests/test_plugins.c).
 */
__attribute__((visibility("default"))) int not_a_plugin(void);
int not_a_plugin(void)
{
    return 42;
}
