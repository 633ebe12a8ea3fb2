// SPDX-License-Identifier: GPL-2.0
/*
 * icb_gpio_loop: a GPIO chip whose lines are wired to each other inside
 * the module, so that `icbench irq` (issue #21) runs its whole path in the
 * VM rig, where there are no pins and no jumper wires.
 *
 * What this module owns: one platform device "icb-gpio-loop", its
 * gpio_chip (label "icb-gpio-loop", `lines` lines, /dev/gpiochipN through
 * gpiolib-cdev) and a simulated interrupt domain (kernel/irq/irq_sim.c,
 * CONFIG_IRQ_SIM) with one interrupt per line.
 *
 * The wiring: lines 2k and 2k+1 are joined for k < `pairs` (by default
 * 0-1, 2-3 and 4-5); the lines above are not wired to anything (an input
 * there never sees an edge: the rig's "wire missing" check). Setting an
 * output changes what its partner reads as an input and, when the level
 * changes and the partner's interrupt is requested for that edge, marks
 * that interrupt pending. irq_sim then runs it from an irq_work, in hard
 * interrupt context, where gpiolib-cdev's edge_irq_handler() stamps the
 * edge (Documentation/userspace-api/gpio/gpio-v2-line-event-read.rst:
 * timestamp_ns, CLOCK_MONOTONIC by default) and its thread handler queues
 * the event and wakes the reader. With `delay_us`, the edge reaches the
 * input that much later (an hrtimer), an emulated slow wire or input
 * synchroniser.
 *
 * What it cannot show: there is no interrupt controller, no pin and no
 * electrical edge behind it. The irq_work is raised on the CPU that set the
 * output (a self-IPI on x86), so (a) in `icbench irq` is the cost of the
 * set ioctl and an irq_work, not of a GPIO controller's interrupt.
 *
 * Counters (read-only module parameters): edges (interrupts raised),
 * unheard (level changes at an input with no interrupt requested for them).
 */
#include <linux/bitmap.h>
#include <linux/gpio/driver.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irq_sim.h>
#include <linux/irqdomain.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define ICB_LOOP_MAX_LINES 32

static unsigned int lines = 8;
module_param(lines, uint, 0444);
MODULE_PARM_DESC(lines, "lines of the chip (2-32)");
static unsigned int pairs = 3;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "lines 2k and 2k+1 are wired together for k < pairs");
static unsigned int delay_us;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "the wire's delay: an edge reaches the input this many us after the set");
static unsigned long edges;
module_param(edges, ulong, 0444);
MODULE_PARM_DESC(edges, "interrupts raised at inputs");
static unsigned long unheard;
module_param(unheard, ulong, 0444);
MODULE_PARM_DESC(unheard, "level changes at inputs with no interrupt requested for them");

struct icb_loop;

/* The far end of one wire: the input it reaches, after the delay. */
struct icb_loop_wire {
	struct hrtimer timer;
	struct icb_loop *loop;
	bool level;
};

struct icb_loop {
	struct gpio_chip gc;
	struct irq_domain *irqs;
	spinlock_t lock;
	/* direction (set: output), level driven by each output, level seen at each input */
	DECLARE_BITMAP(is_out, ICB_LOOP_MAX_LINES);
	DECLARE_BITMAP(driven, ICB_LOOP_MAX_LINES);
	DECLARE_BITMAP(seen, ICB_LOOP_MAX_LINES);
	struct icb_loop_wire wire[ICB_LOOP_MAX_LINES];
};

static struct platform_device *icb_loop_pdev;

/* The line wired to @line, or -1. */
static int icb_loop_partner(unsigned int line)
{
	return line < 2 * pairs ? (int)(line ^ 1) : -1;
}

/* The edge arrives at input @line: level seen, interrupt raised if asked for. */
static void icb_loop_arrive(struct icb_loop *lp, unsigned int line, bool level)
{
	unsigned long flags;
	bool changed;
	int irq, type;

	spin_lock_irqsave(&lp->lock, flags);
	changed = test_bit(line, lp->seen) != level;
	__assign_bit(line, lp->seen, level);
	spin_unlock_irqrestore(&lp->lock, flags);
	if (!changed || test_bit(line, lp->is_out))
		return;
	/* mapped by to_irq() when gpiolib-cdev requested the line's interrupt */
	irq = irq_find_mapping(lp->irqs, line);
	type = irq ? irq_get_trigger_type(irq) : 0;
	if ((level && (type & IRQ_TYPE_EDGE_RISING)) || (!level && (type & IRQ_TYPE_EDGE_FALLING))) {
		/* irq_sim queues an irq_work that runs the handler (kernel/irq/irq_sim.c) */
		if (!irq_set_irqchip_state(irq, IRQCHIP_STATE_PENDING, true)) {
			edges++;
			return;
		}
	}
	unheard++;
}

static enum hrtimer_restart icb_loop_delayed(struct hrtimer *t)
{
	struct icb_loop_wire *w = container_of(t, struct icb_loop_wire, timer);

	icb_loop_arrive(w->loop, w - w->loop->wire, w->level);
	return HRTIMER_NORESTART;
}

/* Output @line now drives @level: carry it down the wire. */
static void icb_loop_drive(struct icb_loop *lp, unsigned int line, bool level)
{
	int p = icb_loop_partner(line);
	unsigned int d = READ_ONCE(delay_us);
	struct icb_loop_wire *w;

	assign_bit(line, lp->driven, level);
	if (p < 0 || p >= lp->gc.ngpio)
		return;
	if (!d) {
		icb_loop_arrive(lp, p, level);
		return;
	}
	w = &lp->wire[p];
	w->level = level;
	hrtimer_start(&w->timer, ns_to_ktime((u64)d * NSEC_PER_USEC), HRTIMER_MODE_REL);
}

static int icb_loop_get(struct gpio_chip *gc, unsigned int line)
{
	struct icb_loop *lp = gpiochip_get_data(gc);

	return test_bit(line, lp->is_out) ? test_bit(line, lp->driven) : test_bit(line, lp->seen);
}

static void icb_loop_set(struct gpio_chip *gc, unsigned int line, int value)
{
	icb_loop_drive(gpiochip_get_data(gc), line, value);
}

static int icb_loop_direction_input(struct gpio_chip *gc, unsigned int line)
{
	struct icb_loop *lp = gpiochip_get_data(gc);

	clear_bit(line, lp->is_out);
	return 0;
}

static int icb_loop_direction_output(struct gpio_chip *gc, unsigned int line, int value)
{
	struct icb_loop *lp = gpiochip_get_data(gc);

	set_bit(line, lp->is_out);
	icb_loop_drive(lp, line, value);
	return 0;
}

static int icb_loop_get_direction(struct gpio_chip *gc, unsigned int line)
{
	struct icb_loop *lp = gpiochip_get_data(gc);

	return test_bit(line, lp->is_out) ? GPIO_LINE_DIRECTION_OUT : GPIO_LINE_DIRECTION_IN;
}

static int icb_loop_to_irq(struct gpio_chip *gc, unsigned int line)
{
	struct icb_loop *lp = gpiochip_get_data(gc);

	return irq_create_mapping(lp->irqs, line);
}

static void icb_loop_teardown(struct icb_loop *lp)
{
	unsigned int i;

	for (i = 0; i < lp->gc.ngpio; i++)
		hrtimer_cancel(&lp->wire[i].timer);
	for (i = 0; i < lp->gc.ngpio; i++)
		irq_dispose_mapping(irq_find_mapping(lp->irqs, i));
	irq_domain_remove_sim(lp->irqs);
}

static int __init icb_loop_init(void)
{
	struct icb_loop *lp;
	unsigned int i;
	int ret;

	if (lines < 2 || lines > ICB_LOOP_MAX_LINES || pairs * 2 > lines)
		return -EINVAL;
	icb_loop_pdev = platform_device_register_simple("icb-gpio-loop", PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(icb_loop_pdev))
		return PTR_ERR(icb_loop_pdev);
	lp = kzalloc(sizeof(*lp), GFP_KERNEL);
	if (!lp) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	spin_lock_init(&lp->lock);
	for (i = 0; i < ICB_LOOP_MAX_LINES; i++) {
		hrtimer_init(&lp->wire[i].timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		lp->wire[i].timer.function = icb_loop_delayed;
		lp->wire[i].loop = lp;
	}
	lp->irqs = irq_domain_create_sim(NULL, lines);
	if (IS_ERR(lp->irqs)) {
		ret = PTR_ERR(lp->irqs);
		goto err_free;
	}
	lp->gc.label = "icb-gpio-loop";
	lp->gc.parent = &icb_loop_pdev->dev;
	lp->gc.owner = THIS_MODULE;
	lp->gc.base = -1;
	lp->gc.ngpio = lines;
	lp->gc.can_sleep = false;
	lp->gc.get = icb_loop_get;
	lp->gc.set = icb_loop_set;
	lp->gc.direction_input = icb_loop_direction_input;
	lp->gc.direction_output = icb_loop_direction_output;
	lp->gc.get_direction = icb_loop_get_direction;
	lp->gc.to_irq = icb_loop_to_irq;
	ret = gpiochip_add_data(&lp->gc, lp);
	if (ret)
		goto err_irqs;
	platform_set_drvdata(icb_loop_pdev, lp);
	dev_info(&icb_loop_pdev->dev, "%u lines, %u wired pairs\n", lines, pairs);
	return 0;

err_irqs:
	irq_domain_remove_sim(lp->irqs);
err_free:
	kfree(lp);
err_pdev:
	platform_device_unregister(icb_loop_pdev);
	return ret;
}

static void __exit icb_loop_exit(void)
{
	struct icb_loop *lp = platform_get_drvdata(icb_loop_pdev);

	gpiochip_remove(&lp->gc);
	icb_loop_teardown(lp);
	kfree(lp);
	platform_device_unregister(icb_loop_pdev);
}

module_init(icb_loop_init);
module_exit(icb_loop_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("icbench: a GPIO chip with its lines wired in pairs, for icbench irq in the VM rig");
