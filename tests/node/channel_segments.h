/* The node channel's shared-memory segments (memfd, node/node_channel.hpp)
 * this process maps now, by the name they show in /proc/self/maps; -1 if
 * that cannot be read. Nothing here asks the library. */
#pragma once

#include <stdio.h>
#include <string.h>

static inline int channel_segments_mapped(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) return -1;
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, maps) != NULL)
        if (strstr(line, "memfd:mpix-node-channel") != NULL) ++count;
    fclose(maps);
    return count;
}
