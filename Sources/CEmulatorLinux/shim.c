#include "CEmulatorLinux.h"
