/*
 * The compiled half of the Python package mpixrma: the library's
 * communicator and persistent request as Python types over the C API
 * (include/mpix/mpix.h). mpixrma/__init__.py parses mpi4py-style buffer
 * specifications and hands this module plain values: buffers (the buffer
 * protocol), count and displacement sequences, and MPI handles as the
 * Fortran integers mpi4py's public py2f() gives (MPI_Comm_f2c, MPI_Type_f2c
 * here).
 *
 * Every family of collectives/families.def is served by one generic init:
 * its C init's parameters, read from the function's type, say how each
 * Python value converts (a buffer, a writable buffer, a sequence of ints,
 * an int, a datatype). A new family's row is all this module needs.
 *
 * Invariants:
 * - A request holds a view of every buffer it was given (Py_buffer, which
 *   also pins a NumPy array's memory against resizing) until it is freed:
 *   the library keeps their addresses, so Python must not free them first.
 * - Nothing here makes a collective call from a destructor (freeing a
 *   communicator or an RMA request is collective, and a garbage collector
 *   runs on one rank at a time): what the program does not free is freed
 *   by the library when MPI_Finalize starts, as in C.
 * - Start, Wait and Test do no more than the C call and its error check:
 *   they are what a loop pays per iteration.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <mpi.h>
#include <mpix/mpix.h>

#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

static PyObject *mpix_error; /* mpixrma.Error */

/* Raises mpixrma.Error with message; error_code holds code. */
static PyObject *raise_error(const char *message, Py_ssize_t length, int code) {
    PyObject *error = PyObject_CallFunction(mpix_error, "s#", message, length);
    if (error == NULL) return NULL;
    PyObject *value = PyLong_FromLong(code);
    if (value != NULL) PyObject_SetAttrString(error, "error_code", value);
    Py_XDECREF(value);
    PyErr_SetObject(mpix_error, error);
    Py_DECREF(error);
    return NULL;
}

/* Raises mpixrma.Error with the library's message for code. */
static PyObject *raise_code(int code) {
    char message[MPIX_MAX_ERROR_STRING];
    int length = 0;
    if (MPIX_Error_string(code, message, &length) != MPI_SUCCESS) length = 0;
    return raise_error(message, length, code);
}

/* Raises mpixrma.Error for a handle freed already, as mpi4py raises
 * MPI.Exception for a null handle: error_code holds the class. */
static PyObject *raise_freed(const char *what, int code) { return raise_error(what, (Py_ssize_t)strlen(what), code); }

/* The Fortran handle an mpi4py object's public py2f() gives, as MPI_Fint;
 * -1 with an exception set if it is not an int. */
static int fortran_handle(PyObject *integer, MPI_Fint *handle) {
    const long value = PyLong_AsLong(integer);
    if (value == -1 && PyErr_Occurred()) return -1;
    *handle = (MPI_Fint)value;
    return 0;
}

/* Sets an mpi4py Status (or does nothing for None) to the empty status of
 * a completed persistent collective, as MPI defines it; -1 with an
 * exception set if it is not a Status. */
static int set_empty_status(PyObject *status) {
    if (status == NULL || status == Py_None) return 0;
    const struct {
        const char *method;
        int value;
    } fields[] = {{"Set_source", MPI_ANY_SOURCE}, {"Set_tag", MPI_ANY_TAG}, {"Set_error", MPI_SUCCESS}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        PyObject *done = PyObject_CallMethod(status, fields[i].method, "i", fields[i].value);
        if (done == NULL) return -1;
        Py_DECREF(done);
    }
    return 0;
}

/* A sequence of Python ints as a new C array (PyMem_Free it); NULL with an
 * exception set if it is not one. */
static int *int_array(PyObject *sequence, Py_ssize_t *length) {
    PyObject *fast = PySequence_Fast(sequence, "counts and displacements must be sequences of integers");
    if (fast == NULL) return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int *values = static_cast<int *>(PyMem_Malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)));
    for (Py_ssize_t i = 0; values != NULL && i < n; ++i) {
        const long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(values);
            values = NULL;
        } else if (v < -2147483647L - 1 || v > 2147483647L) {
            PyErr_SetString(PyExc_OverflowError, "a count or displacement does not fit a C int");
            PyMem_Free(values);
            values = NULL;
        } else {
            values[i] = (int)v;
        }
    }
    Py_DECREF(fast);
    if (values == NULL && !PyErr_Occurred()) PyErr_NoMemory();
    *length = n;
    return values;
}

/* ---- Comm --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    MPIX_Comm *comm;
} Comm;

static int comm_init(Comm *self, PyObject *args, PyObject *kwargs) {
    static const char *keywords[] = {"fortran_handle", NULL};
    PyObject *handle;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", const_cast<char **>(keywords), &handle)) return -1;
    MPI_Fint comm;
    if (fortran_handle(handle, &comm) != 0) return -1;
    const int code = MPIX_Comm_init(&self->comm, MPI_Comm_f2c(comm));
    if (code != MPI_SUCCESS) {
        raise_code(code);
        return -1;
    }
    return 0;
}

static PyObject *comm_free(Comm *self, PyObject *unused) {
    (void)unused;
    if (self->comm == NULL) return raise_freed("Free: the communicator is freed already", MPI_ERR_COMM);
    const int code = MPIX_Comm_free(&self->comm);
    if (code != MPI_SUCCESS) return raise_code(code);
    Py_RETURN_NONE;
}

static PyMethodDef comm_methods[] = {
    {"Free", (PyCFunction)comm_free, METH_NOARGS, "MPIX_Comm_free (collective)."},
    {NULL, NULL, 0, NULL}};

/* Its fields are set in PyInit__mpixrma (C++17 has no designated
 * initializers). */
static PyTypeObject CommType = {PyVarObject_HEAD_INIT(NULL, 0)};

/* ---- Request ------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    MPIX_Request *request;
    PyObject *comm;        /* the Comm it was made on, kept alive */
    int owns_comm;         /* made for this request alone: freed with it */
    Py_buffer send, recv;  /* the buffers given at init, held until freed */
    Py_buffer moved_send, moved_recv; /* the last Start_with_buffers' */
    int has_send, has_recv, has_moved;
} Request;

static void release_moved(Request *self) {
    if (!self->has_moved) return;
    if (self->moved_send.obj != NULL) PyBuffer_Release(&self->moved_send);
    PyBuffer_Release(&self->moved_recv);
    self->has_moved = 0;
}

static void release_views(Request *self) {
    if (self->has_send) PyBuffer_Release(&self->send);
    if (self->has_recv) PyBuffer_Release(&self->recv);
    self->has_send = self->has_recv = 0;
    release_moved(self);
}

static void request_dealloc(Request *self) {
    release_views(self);
    Py_XDECREF(self->comm);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *request_start(Request *self, PyObject *unused) {
    (void)unused;
    const int code = MPIX_Start(self->request);
    if (code != MPI_SUCCESS) return raise_code(code);
    Py_RETURN_NONE;
}

/* Wait(status=None), as mpi4py's: status, if given, is set empty. */
static PyObject *request_wait(Request *self, PyObject *args, PyObject *kwargs) {
    static const char *keywords[] = {"status", NULL};
    PyObject *status = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char **>(keywords), &status)) return NULL;
    int code;
    Py_BEGIN_ALLOW_THREADS code = MPIX_Wait(self->request, MPI_STATUS_IGNORE);
    Py_END_ALLOW_THREADS if (code != MPI_SUCCESS) return raise_code(code);
    if (set_empty_status(status) != 0) return NULL;
    Py_RETURN_NONE;
}

/* Test(status=None): whether it completed; status, if given and it did,
 * is set empty. */
static PyObject *request_test(Request *self, PyObject *args, PyObject *kwargs) {
    static const char *keywords[] = {"status", NULL};
    PyObject *status = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char **>(keywords), &status)) return NULL;
    int flag = 0;
    const int code = MPIX_Test(self->request, &flag, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) return raise_code(code);
    if (flag && set_empty_status(status) != 0) return NULL;
    return PyBool_FromLong(flag);
}

static PyObject *request_free(Request *self, PyObject *unused) {
    (void)unused;
    if (self->request == NULL) return raise_freed("Free: the request is freed already", MPI_ERR_REQUEST);
    const int code = MPIX_Request_free(&self->request);
    if (code != MPI_SUCCESS) return raise_code(code);
    release_views(self);
    if (self->owns_comm) {
        self->owns_comm = 0;
        return comm_free((Comm *)self->comm, NULL);
    }
    Py_RETURN_NONE;
}

/* The request's communicator was made for it alone: Free frees it too. */
static PyObject *request_own_comm(Request *self, PyObject *unused) {
    (void)unused;
    self->owns_comm = 1;
    Py_RETURN_NONE;
}

/* MPIX_Start_with_buffers: buffers of the same sizes as those given at
 * init, held until the next Start_with_buffers or Free. */
static PyObject *request_start_with_buffers(Request *self, PyObject *args) {
    PyObject *send_object, *recv_object;
    if (!PyArg_ParseTuple(args, "OO", &send_object, &recv_object)) return NULL;
    if (self->request == NULL) return raise_freed("Start_with_buffers: the request is freed", MPI_ERR_REQUEST);
    Py_buffer send = {0}, recv;
    if (send_object != Py_None && PyObject_GetBuffer(send_object, &send, PyBUF_ANY_CONTIGUOUS) != 0) return NULL;
    if (PyObject_GetBuffer(recv_object, &recv, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        return NULL;
    }
    const int same = (send_object == Py_None) == !self->has_send &&
                     (send.obj == NULL || send.len == self->send.len) && recv.len == self->recv.len;
    if (!same) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        PyBuffer_Release(&recv);
        PyErr_SetString(PyExc_ValueError, "Start_with_buffers: the buffers must have the sizes of those given at "
                                          "init (and sendbuf be IN_PLACE if and only if it was)");
        return NULL;
    }
    const int code = MPIX_Start_with_buffers(self->request, send.obj != NULL ? send.buf : MPI_IN_PLACE, recv.buf);
    if (code != MPI_SUCCESS) {
        if (send.obj != NULL) PyBuffer_Release(&send);
        PyBuffer_Release(&recv);
        return raise_code(code);
    }
    release_moved(self);
    self->moved_send = send;
    self->moved_recv = recv;
    self->has_moved = 1;
    Py_RETURN_NONE;
}

static PyObject *request_algorithm(Request *self, void *closure) {
    (void)closure;
    char name[MPIX_MAX_OBJECT_NAME];
    int length = 0;
    const int code = MPIX_Request_get_algorithm(self->request, name, &length);
    if (code != MPI_SUCCESS) return raise_code(code);
    return PyUnicode_FromStringAndSize(name, length);
}

static PyObject *request_settled(Request *self, void *closure) {
    (void)closure;
    int flag = 0;
    const int code = MPIX_Request_is_settled(self->request, &flag);
    if (code != MPI_SUCCESS) return raise_code(code);
    return PyBool_FromLong(flag);
}

static PyObject *request_enter(Request *self, PyObject *unused) {
    (void)unused;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *request_exit(Request *self, PyObject *args) {
    (void)args;
    if (self->request == NULL) Py_RETURN_FALSE; /* freed inside the block */
    PyObject *done = request_free(self, NULL);
    if (done == NULL) return NULL;
    Py_DECREF(done);
    Py_RETURN_FALSE;
}

static PyMethodDef request_methods[] = {
    {"Start", (PyCFunction)request_start, METH_NOARGS, "MPIX_Start."},
    {"Wait", (PyCFunction)(void (*)(void))request_wait, METH_VARARGS | METH_KEYWORDS,
     "MPIX_Wait; status, if given, is set empty (a persistent collective's)."},
    {"Test", (PyCFunction)(void (*)(void))request_test, METH_VARARGS | METH_KEYWORDS,
     "MPIX_Test: whether it completed; status, if given, is set empty once it did."},
    {"Free", (PyCFunction)request_free, METH_NOARGS,
     "MPIX_Request_free (collective for RMA algorithms); releases the buffers."},
    {"Start_with_buffers", (PyCFunction)request_start_with_buffers, METH_VARARGS,
     "MPIX_Start_with_buffers(sendbuf or None for IN_PLACE, recvbuf): only for mpix_buffers_move requests."},
    {"_own_comm", (PyCFunction)request_own_comm, METH_NOARGS, "Free frees the communicator too."},
    {"__enter__", (PyCFunction)request_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)request_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef request_getset[] = {
    {"algorithm", (getter)request_algorithm, NULL, "The algorithm that runs it now.", NULL},
    {"settled", (getter)request_settled, NULL, "Whether it runs its chosen algorithm.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject RequestType = {PyVarObject_HEAD_INIT(NULL, 0)};

/* ---- init calls --------------------------------------------------------- */

/* An MPIX_Info from a dict of strings (NULL for None); *info_out NULL if none. */
static int info_from(PyObject *dict, MPIX_Info **info_out) {
    *info_out = NULL;
    if (dict == Py_None) return 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "info must be a dict of strings");
        return -1;
    }
    int code = MPIX_Info_init(info_out);
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (code == MPI_SUCCESS && PyDict_Next(dict, &position, &key, &value)) {
        const char *k = PyUnicode_AsUTF8(key), *v = PyUnicode_AsUTF8(value);
        if (k == NULL || v == NULL) {
            MPIX_Info_free(info_out);
            return -1;
        }
        code = MPIX_Info_set(*info_out, k, v);
    }
    if (code != MPI_SUCCESS) {
        if (*info_out != NULL) MPIX_Info_free(info_out);
        raise_code(code);
        return -1;
    }
    return 0;
}

/* A new Request on comm, holding no buffer yet (its init's conversions
 * add the views). */
static Request *new_request(PyObject *comm) {
    if (!PyObject_TypeCheck(comm, &CommType) || ((Comm *)comm)->comm == NULL) {
        PyErr_SetString(PyExc_TypeError, "comm must be a live mpixrma Comm");
        return NULL;
    }
    Request *self = PyObject_New(Request, &RequestType);
    if (self == NULL) return NULL;
    self->request = NULL;
    self->has_send = self->has_recv = self->has_moved = self->owns_comm = 0;
    self->moved_send.obj = NULL;
    Py_INCREF(comm);
    self->comm = comm;
    return self;
}

/* What an init call returns: the request, or NULL with the exception its
 * making raised (the request and its buffer views released). */
static PyObject *made(Request *self) {
    if (PyErr_Occurred()) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* How one Python value becomes one parameter of a family's C init, by the
 * parameter's C type. Each converts in place (self holds what must outlive
 * the call) and returns -1 with an exception set where the value does not
 * convert. */
template <class T>
struct Parameter; /* a parameter type no family has yet: add its conversion */

/* The send buffer (None for MPI_IN_PLACE): the request's view of it. */
template <>
struct Parameter<const void *> {
    const void *value = MPI_IN_PLACE;
    int convert(PyObject *object, Request *self) {
        if (object == Py_None) return 0;
        if (PyObject_GetBuffer(object, &self->send, PyBUF_ANY_CONTIGUOUS) != 0) return -1;
        self->has_send = 1;
        value = self->send.buf;
        return 0;
    }
};

/* The receive buffer, writable: the request's view of it. */
template <>
struct Parameter<void *> {
    void *value = nullptr;
    int convert(PyObject *object, Request *self) {
        if (PyObject_GetBuffer(object, &self->recv, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE) != 0) return -1;
        self->has_recv = 1;
        value = self->recv.buf;
        return 0;
    }
};

/* Counts or displacements: a sequence of ints, copied (the library copies
 * them too). */
template <>
struct Parameter<const int *> {
    std::vector<int> values;
    const int *value = nullptr;
    int convert(PyObject *object, Request *) {
        Py_ssize_t n = 0;
        int *array = int_array(object, &n);
        if (array == NULL) return -1;
        values.assign(array, array + n);
        PyMem_Free(array);
        value = values.data();
        return 0;
    }
};

template <>
struct Parameter<int> {
    int value = 0;
    int convert(PyObject *object, Request *) {
        const long v = PyLong_AsLong(object);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < -2147483647L - 1 || v > 2147483647L) {
            PyErr_SetString(PyExc_OverflowError, "a count does not fit a C int");
            return -1;
        }
        value = (int)v;
        return 0;
    }
};

/* A datatype, as the Fortran handle mpi4py's py2f() gives. */
template <>
struct Parameter<MPI_Datatype> {
    MPI_Datatype value = MPI_DATATYPE_NULL;
    int convert(PyObject *object, Request *) {
        MPI_Fint handle;
        if (fortran_handle(object, &handle) != 0) return -1;
        value = MPI_Type_f2c(handle);
        return 0;
    }
};

/* A family's C init, called with Python values: its parameters before
 * (xcomm, info, request), each converted by its Parameter. */
template <class Init>
struct FamilyInit;

template <class... P>
struct FamilyInit<int (*)(P...)> {
    static constexpr size_t count = sizeof...(P) - 3;
    template <size_t I>
    using ParameterAt = Parameter<std::tuple_element_t<I, std::tuple<P...>>>;

    template <size_t... I>
    static PyObject *call(int (*init)(P...), PyObject *values, PyObject *comm, PyObject *info_dict,
                          std::index_sequence<I...>) {
        static_assert(std::is_same<std::tuple_element_t<count, std::tuple<P...>>, MPIX_Comm *>::value &&
                          std::is_same<std::tuple_element_t<count + 1, std::tuple<P...>>, MPIX_Info *>::value &&
                          std::is_same<std::tuple_element_t<count + 2, std::tuple<P...>>, MPIX_Request **>::value,
                      "a family's init ends with (MPIX_Comm *, MPIX_Info *, MPIX_Request **)");
        if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != (Py_ssize_t)count)
            return PyErr_Format(PyExc_TypeError, "the init takes %d values before comm", (int)count);
        Request *self = new_request(comm);
        if (self == NULL) return NULL;
        std::tuple<ParameterAt<I>...> parameters;
        const bool converted = (... && (std::get<I>(parameters).convert(PyTuple_GET_ITEM(values, I), self) == 0));
        MPIX_Info *info = NULL;
        if (converted && info_from(info_dict, &info) == 0) {
            const int code = init(std::get<I>(parameters).value..., ((Comm *)comm)->comm, info, &self->request);
            if (info != NULL) MPIX_Info_free(&info);
            if (code != MPI_SUCCESS) raise_code(code);
        }
        return made(self);
    }
    static PyObject *call(int (*init)(P...), PyObject *values, PyObject *comm, PyObject *info_dict) {
        return call(init, values, comm, info_dict, std::make_index_sequence<count>());
    }
};

/* Every family of collectives/families.def, by folder: its init, its
 * parameters' names (the Python layer maps buffer specifications onto
 * them) and its public listing. The families table is the only list. */
struct Family {
    const char *folder, *name, *parameters;
    PyObject *(*init)(PyObject *values, PyObject *comm, PyObject *info);
    int (*count)(int *);
    int (*describe)(int, const char **, const char **, int *);
};

#define MPIX_FAMILY(folder, Name, rows_namespace, parameters, names)                                            \
    {#folder, #Name, #names,                                                                                    \
     [](PyObject *values, PyObject *comm, PyObject *info) {                                                    \
         return FamilyInit<decltype(&MPIX_##Name##_init)>::call(MPIX_##Name##_init, values, comm, info);       \
     },                                                                                                         \
     MPIX_##Name##_algorithm_count, MPIX_##Name##_algorithm},
static const Family families[] = {
#include "collectives/families.def"
};
#undef MPIX_FAMILY

/* The family whose folder is given; NULL with ValueError if none. */
static const Family *family_named(const char *folder) {
    for (const Family &family : families)
        if (std::strcmp(folder, family.folder) == 0) return &family;
    PyErr_Format(PyExc_ValueError, "no family '%s' in collectives/families.def", folder);
    return NULL;
}

/* _init(family, values, comm, info): the family's C init over values, the
 * tuple of its parameters before (xcomm, info, request). */
static PyObject *family_init(PyObject *module, PyObject *args) {
    (void)module;
    const char *folder;
    PyObject *values, *comm, *info_dict;
    if (!PyArg_ParseTuple(args, "sOOO", &folder, &values, &comm, &info_dict)) return NULL;
    const Family *family = family_named(folder);
    return family == NULL ? NULL : family->init(values, comm, info_dict);
}

/* _families(): [(folder, name, "(parameter, names, ...)")], in the
 * table's order: the names as the row writes them. */
static PyObject *list_families(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    PyObject *rows = PyList_New(0);
    for (const Family &family : families) {
        PyObject *row = Py_BuildValue("(sss)", family.folder, family.name, family.parameters);
        if (row == NULL || PyList_Append(rows, row) != 0) {
            Py_XDECREF(row);
            Py_DECREF(rows);
            return NULL;
        }
        Py_DECREF(row);
    }
    return rows;
}

/* _algorithms(family): [(name, description, capabilities)] from its listing. */
static PyObject *algorithms(PyObject *module, PyObject *args) {
    (void)module;
    const char *family;
    if (!PyArg_ParseTuple(args, "s", &family)) return NULL;
    const Family *listed = family_named(family);
    if (listed == NULL) return NULL;
    int (*count_of)(int *) = listed->count;
    int (*describe)(int, const char **, const char **, int *) = listed->describe;
    int count = 0;
    int code = count_of(&count);
    if (code != MPI_SUCCESS) return raise_code(code);
    PyObject *rows = PyList_New(count);
    for (int i = 0; rows != NULL && i < count; ++i) {
        const char *name, *description;
        int capabilities;
        code = describe(i, &name, &description, &capabilities);
        if (code != MPI_SUCCESS) {
            Py_DECREF(rows);
            return raise_code(code);
        }
        PyList_SET_ITEM(rows, i, Py_BuildValue("(ssi)", name, description, capabilities));
    }
    return rows;
}

static PyMethodDef module_methods[] = {
    {"_init", family_init, METH_VARARGS, "A family's MPIX_<Name>_init over its parameters' values."},
    {"_families", list_families, METH_NOARGS, "Every family: (folder, name, its init's parameter names)."},
    {"_algorithms", algorithms, METH_VARARGS, "A family's registered algorithms."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "_mpixrma",
                                               "The C half of mpixrma (see mpixrma/__init__.py).", -1,
                                               module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__mpixrma(void) {
    CommType.tp_name = "mpixrma._mpixrma.Comm";
    CommType.tp_basicsize = sizeof(Comm);
    CommType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    CommType.tp_doc = "The library's communicator over an MPI communicator (MPIX_Comm_init; collective).";
    CommType.tp_new = PyType_GenericNew;
    CommType.tp_init = (initproc)comm_init;
    CommType.tp_methods = comm_methods;
    RequestType.tp_name = "mpixrma._mpixrma.Request";
    RequestType.tp_basicsize = sizeof(Request);
    RequestType.tp_flags = Py_TPFLAGS_DEFAULT;
    RequestType.tp_doc = "A persistent exchange: Start, Wait, Test, Free; a context manager that frees it.";
    RequestType.tp_dealloc = (destructor)request_dealloc;
    RequestType.tp_methods = request_methods;
    RequestType.tp_getset = request_getset;
    if (PyType_Ready(&CommType) < 0 || PyType_Ready(&RequestType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) return NULL;
    mpix_error = PyErr_NewException("mpixrma.Error", PyExc_RuntimeError, NULL);
    Py_INCREF(&CommType);
    Py_INCREF(&RequestType);
    if (mpix_error == NULL || PyModule_AddObject(module, "Error", mpix_error) < 0 ||
        PyModule_AddObject(module, "Comm", (PyObject *)&CommType) < 0 ||
        PyModule_AddObject(module, "Request", (PyObject *)&RequestType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(mpix_error);
    return module;
}
